import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The production build (no CLOUDFLARE_ENV) must carry no emulator: no binding, no second worker, and
// `wrangler deploy --dry-run` accepts it. Built into its own folder so the running preview is untouched.
const OUT = ".prod-check";
const quiet = {
  ...process.env,
  CLOUDFLARE_ENV: "",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

describe("the production build", () => {
  it("has no emulator and passes wrangler deploy --dry-run", () => {
    rmSync(OUT, { recursive: true, force: true });
    const build = spawnSync("npx", ["vite", "build", "--outDir", OUT, "--logLevel", "warn"], {
      encoding: "utf8",
      env: quiet,
    });
    expect(build.status, build.stderr).toBe(0);
    expect(readdirSync(OUT).sort()).toEqual(["client", "signin_site"]);
    const config = JSON.parse(readFileSync(`${OUT}/signin_site/wrangler.json`, "utf8")) as {
      services?: unknown[];
      durable_objects?: { bindings?: unknown[] };
      vars: Record<string, string>;
    };
    expect(config.services ?? []).toHaveLength(0);
    expect(config.durable_objects?.bindings ?? []).toHaveLength(0);
    expect(config.vars.APP_ENV).toBe("prod");
    expect(config.vars).not.toHaveProperty("SESSION_KEYS");
    const bundle = readFileSync(`${OUT}/signin_site/index.js`, "utf8");
    expect(bundle).not.toContain("IdentityState");
    expect(existsSync(`${OUT}/client/.vite/manifest.json`)).toBe(true);
    expect(readFileSync(`${OUT}/client/.assetsignore`, "utf8")).toContain(".vite");

    const dryRun = spawnSync(
      "npx",
      ["wrangler", "deploy", "--dry-run", "--config", `${OUT}/signin_site/wrangler.json`],
      { encoding: "utf8", env: quiet },
    );
    expect(dryRun.status, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain("--dry-run: exiting now.");
    expect(dryRun.stdout).not.toMatch(/IDENTITY\b(?!_)/);
    rmSync(OUT, { recursive: true, force: true });
  });
});
