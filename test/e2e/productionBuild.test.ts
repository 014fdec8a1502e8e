import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerUploadSize } from "../bench/workerUpload";

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

// What the production and staging builds must not hold, looked for where it is: the dev build the browser tests run
// (globalSetup built it into dist/). Without this, a name the minifier renamed or a binding spelt otherwise would leave
// the checks below nothing to find, and they would pass whatever the build held.
const DEV_ONLY = {
  bundleMarkers: ["__gallery", "gallery-item"],
  emulatorClass: "IdentityState",
  binding: /IDENTITY\b(?!_)/,
};

// BudouX marks the UI text's phrase boundaries at build time (messages/vite-plugin.ts) and must ship in neither the
// worker nor the islands: its parser's method and its model's feature names, found in its own package (the control).
const BUDOUX = /parseBoundaries|\bUW1\b/;
/** The phrase-boundary marker the build writes into the UI text. */
const PHRASE_BREAK = "\u200b";

describe("the dev build (the control of the checks below)", () => {
  it("has the emulator, its binding and the dev-only routes that production and staging must not", () => {
    const config = JSON.parse(readFileSync("dist/signin_site/wrangler.json", "utf8")) as {
      services?: Array<{ binding: string }>;
      vars: Record<string, string>;
    };
    expect(config.vars.APP_ENV).toBe("dev");
    expect(config.services?.map(({ binding }) => binding) ?? []).toContainEqual(
      expect.stringMatching(DEV_ONLY.binding),
    );
    const bundle = readFileSync("dist/signin_site/index.js", "utf8");
    for (const marker of DEV_ONLY.bundleMarkers) expect(bundle).toContain(marker);
    // The emulator's Durable Object class keeps its name in a minified bundle: its absence below means something.
    expect(readFileSync("dist/emulator/index.js", "utf8")).toContain(DEV_ONLY.emulatorClass);
    expect(readFileSync("node_modules/budoux/module/parser.js", "utf8")).toMatch(BUDOUX);
    expect(readFileSync("node_modules/budoux/module/data/models/ja.js", "utf8")).toMatch(BUDOUX);
  });
});

// Production (no CLOUDFLARE_ENV) and staging (CLOUDFLARE_ENV=stg), each built into its own folder so the running
// preview is untouched, as `npm run deploy:dry-run` builds them.
describe.each([
  { environment: "production", cloudflareEnv: "", out: ".prod-check", worker: "signin-site", appEnv: "prod" },
  { environment: "staging", cloudflareEnv: "stg", out: ".stg-check", worker: "signin-site-stg", appEnv: "stg" },
])("the $environment build", ({ cloudflareEnv, out, worker, appEnv }) => {
  // NODE_ENV as a deploy has it (vitest's "test" would bundle React's development builds).
  const env = { ...quiet, NODE_ENV: "production", CLOUDFLARE_ENV: cloudflareEnv };
  it("has no emulator, no dev-only route, passes wrangler deploy --dry-run naming its own worker, within budget", () => {
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
    expect(bundle).not.toContain(DEV_ONLY.emulatorClass);
    // The dev-only routes (__DEV_ROUTES__ false outside CLOUDFLARE_ENV=dev) and their modules are tree-shaken away.
    for (const marker of DEV_ONLY.bundleMarkers) expect(bundle).not.toContain(marker);
    expect(existsSync(`${out}/client/.vite/manifest.json`)).toBe(true);
    // The UI text ships with its phrase boundaries marked, and nothing of BudouX ships (docs/accessibility.md).
    expect(bundle.split(PHRASE_BREAK).length).toBeGreaterThan(500);
    const islands = readdirSync(`${out}/client/assets`).filter((name) => name.endsWith(".js"));
    expect(islands.length).toBeGreaterThan(0);
    for (const file of [`${out}/signin_site/index.js`, ...islands.map((name) => `${out}/client/assets/${name}`)])
      expect(BUDOUX.test(readFileSync(file, "utf8")), file).toBe(false);
    expect(readFileSync(`${out}/client/.assetsignore`, "utf8")).toContain(".vite");

    const dryRun = spawnSync(
      "npx",
      ["wrangler", "deploy", "--dry-run", "--config", `${out}/signin_site/wrangler.json`],
      { encoding: "utf8", env },
    );
    expect(dryRun.status, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain("--dry-run: exiting now.");
    // The dry run lists the worker's bindings: its own, never the emulator's.
    expect(dryRun.stdout).toContain("APP_ENV");
    expect(dryRun.stdout).not.toMatch(DEV_ONLY.binding);
    // Within the upload's budget (test/bench/budgets.json): every module wrangler uploads, gzipped as the bench counts.
    const { workerGzipBytes } = JSON.parse(readFileSync("test/bench/budgets.json", "utf8")) as {
      workerGzipBytes: number;
    };
    const upload = workerUploadSize(`${out}/signin_site`);
    expect(upload.gzipBytes, `the worker's upload, ${upload.files} module(s)`).toBeLessThanOrEqual(workerGzipBytes);
    rmSync(out, { recursive: true, force: true });
  }, 240_000);
});
