import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

// The worker's upload as its budget (test/bench/budgets.json, `workerGzipBytes`) counts it: what
// test/e2e/productionBuild.test.ts holds the production and staging builds to, and what `npm run bench`
// (tools/bench/) prints. Every module is gzipped on its own at level 9.

export interface WorkerSize {
  files: number;
  rawBytes: number;
  gzipBytes: number;
}

/**
 * Every module of a built worker, as wrangler uploads them: its entry and every module beside it, in subfolders too
 * (a chunk the worker imports lands in `assets/`).
 */
export function workerUploadSize(workerDir: string): WorkerSize {
  const modules = readdirSync(workerDir, { recursive: true, encoding: "utf8" }).filter((name) =>
    /\.(m?js|wasm)$/.test(name),
  );
  return modules.reduce(
    (sum, name) => {
      const bytes = readFileSync(join(workerDir, name));
      return {
        files: sum.files + 1,
        rawBytes: sum.rawBytes + bytes.length,
        gzipBytes: sum.gzipBytes + gzipSync(bytes, { level: 9 }).length,
      };
    },
    { files: 0, rawBytes: 0, gzipBytes: 0 },
  );
}
