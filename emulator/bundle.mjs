import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const emulatorDir = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(emulatorDir, "..", ".emulator-build");

/**
 * Miniflare WorkerOptions for the emulator as an auxiliary worker of a test pool
 * (`cloudflareTest({ miniflare: { workers: [await emulatorWorkerOptions()] } })`):
 * the pool cannot load a second worker from its wrangler config, so it gets a bundle,
 * with bindings, Durable Objects and compatibility settings read from emulator/wrangler.toml.
 *
 * @param {{ vars?: Record<string, string> }} [options] extra vars, e.g. `{ SITE_ORIGIN: 'http://localhost' }`
 * @returns {Promise<import('miniflare').WorkerOptions>}
 */
export async function emulatorWorkerOptions(options = {}) {
  const scriptPath = resolve(outDir, "emulator.mjs");
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [resolve(emulatorDir, "index.ts")],
    outfile: scriptPath,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["workerd", "worker", "browser", "module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    logLevel: "warning",
  });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(resolve(emulatorDir, "wrangler.toml"));
  return {
    name: "emulator",
    modules: true,
    scriptPath,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    bindings: { ...workerOptions.bindings, ...options.vars },
    durableObjects: workerOptions.durableObjects,
  };
}
