import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The production build (no CLOUDFLARE_ENV) must carry no emulator: no binding, no second worker, and
// `wrangler deploy --dry-run` accepts it. Built into its own folder so the running preview is untouched.
const quiet = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

// Every `vite build` points .wrangler/deploy/config.json at what it built, and `vite preview` (the browser tests', the
// bench's, a developer's) serves what that file names: it is put back as it was, not left naming a folder that is
// then removed.
const DEPLOY_POINTER = ".wrangler/deploy/config.json";
let pointer: string | undefined;
beforeAll(() => {
  pointer = existsSync(DEPLOY_POINTER) ? readFileSync(DEPLOY_POINTER, "utf8") : undefined;
});
afterAll(() => {
  if (pointer === undefined) rmSync(DEPLOY_POINTER, { force: true });
  else writeFileSync(DEPLOY_POINTER, pointer);
});

// Production (no CLOUDFLARE_ENV) and staging (CLOUDFLARE_ENV=stg), each built into its own folder so the running
// preview is untouched, as `npm run deploy:dry-run` builds them.
describe.each([
  { environment: "production", cloudflareEnv: "", out: ".prod-check", worker: "signin-site", appEnv: "prod" },
  { environment: "staging", cloudflareEnv: "stg", out: ".stg-check", worker: "signin-site-stg", appEnv: "stg" },
])("the $environment build", ({ cloudflareEnv, out, worker, appEnv }) => {
  const env = { ...quiet, CLOUDFLARE_ENV: cloudflareEnv };
  it("has no emulator, no dev-only route and passes wrangler deploy --dry-run, naming its own worker", () => {
    rmSync(out, { recursive: true, force: true });
    const build = spawnSync("npx", ["vite", "build", "--outDir", out, "--logLevel", "warn"], {
      encoding: "utf8",
      env,
    });
    expect(build.status, build.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["client", "signin_site"]);
    const config = JSON.parse(readFileSync(`${out}/signin_site/wrangler.json`, "utf8")) as {
      name: string;
      services?: unknown[];
      durable_objects?: { bindings?: unknown[] };
      vars: Record<string, string>;
    };
    expect(config.name).toBe(worker);
    expect(config.services ?? []).toHaveLength(0);
    expect(config.durable_objects?.bindings ?? []).toHaveLength(0);
    expect(config.vars.APP_ENV).toBe(appEnv);
    expect(config.vars).not.toHaveProperty("SESSION_KEYS");
    const bundle = readFileSync(`${out}/signin_site/index.js`, "utf8");
    expect(bundle).not.toContain("IdentityState");
    // The dev-only routes (__DEV_ROUTES__ false outside CLOUDFLARE_ENV=dev) and their modules are tree-shaken away.
    expect(bundle).not.toContain("__gallery");
    expect(bundle).not.toContain("gallery-item");
    expect(existsSync(`${out}/client/.vite/manifest.json`)).toBe(true);
    expect(readFileSync(`${out}/client/.assetsignore`, "utf8")).toContain(".vite");

    const dryRun = spawnSync(
      "npx",
      ["wrangler", "deploy", "--dry-run", "--config", `${out}/signin_site/wrangler.json`],
      { encoding: "utf8", env },
    );
    expect(dryRun.status, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain("--dry-run: exiting now.");
    expect(dryRun.stdout).not.toMatch(/IDENTITY\b(?!_)/);
    rmSync(out, { recursive: true, force: true });
  }, 240_000);
});
