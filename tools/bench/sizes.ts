import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type WorkerSize, workerUploadSize } from "../../test/bench/workerUpload";

// The size budgets (test/bench/budgets.json), measured on what is shipped: the production worker upload (counted by
// test/bench/workerUpload.ts, as the production build test counts it), and per page the JavaScript a browser fetches,
// split into the shared React runtime chunk and the page's own island code. Every file is gzipped on its own (level
// 9), as each travels as its own response.

const ROOT = process.cwd();
const gzipBytes = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;

/** Where a build leaves the Cloudflare plugin's pointer to its output, which `vite preview` and wrangler follow. */
const DEPLOY_POINTER = ".wrangler/deploy/config.json";

/**
 * Builds production (no CLOUDFLARE_ENV: no emulator, no dev-only code) into its own folder and measures every
 * module wrangler would upload, as `wrangler deploy` counts them (its "Total Upload … gzip"). The build's pointer
 * is put back as it was, so that `vite preview` (`npm run preview`) still serves the last site build.
 */
export function productionWorkerSize(outDir = ".bench-build/prod"): WorkerSize {
  rmSync(outDir, { recursive: true, force: true });
  const pointer = existsSync(DEPLOY_POINTER) ? readFileSync(DEPLOY_POINTER) : undefined;
  // An empty CLOUDFLARE_ENV is wrangler's top-level (production) environment, as test/e2e/productionBuild.test.ts builds it.
  const env = { ...process.env, NODE_ENV: "production", CLOUDFLARE_ENV: "", WRANGLER_SEND_METRICS: "false" };
  const build = spawnSync("npx", ["vite", "build", "--outDir", outDir, "--logLevel", "warn"], {
    env,
    stdio: "inherit",
  });
  if (pointer) writeFileSync(DEPLOY_POINTER, pointer);
  if (build.status !== 0) throw new Error(`production build failed (exit ${build.status})`);
  const size = workerUploadSize(join(outDir, "signin_site"));
  rmSync(outDir, { recursive: true, force: true });
  return size;
}

/** The script and module-preload URLs of a page, as the browser fetches them. */
export function scriptUrls(html: string): string[] {
  const found = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g),
    ...html.matchAll(/<link rel="modulepreload"[^>]*\bhref="([^"]+)"/g),
  ].map((m) => m[1]!);
  return [...new Set(found)];
}

interface ManifestChunk {
  file: string;
  name?: string;
}

/** The URL of the shared React runtime chunk of the client build (vite.config.ts names it "react"). */
export function reactChunkUrl(clientDir = join(ROOT, "dist/client")): string {
  const manifest = JSON.parse(readFileSync(join(clientDir, ".vite/manifest.json"), "utf8")) as Record<
    string,
    ManifestChunk
  >;
  const chunk = Object.values(manifest).find((entry) => entry.name === "react");
  if (!chunk) throw new Error("the client build has no React runtime chunk");
  return `/${chunk.file}`;
}

export interface PageScripts {
  /** Every script the page loads, gzip. */
  totalGzip: number;
  /** The shared React runtime chunk, when the page loads it. */
  reactGzip: number;
  /** The page's own island code: everything but the React runtime. */
  islandGzip: number;
}

export function pageScripts(html: string, reactUrl: string, clientDir = join(ROOT, "dist/client")): PageScripts {
  let reactGzip = 0;
  let islandGzip = 0;
  for (const url of scriptUrls(html)) {
    const bytes = gzipBytes(readFileSync(join(clientDir, url)));
    if (url === reactUrl) reactGzip += bytes;
    else islandGzip += bytes;
  }
  return { totalGzip: reactGzip + islandGzip, reactGzip, islandGzip };
}
