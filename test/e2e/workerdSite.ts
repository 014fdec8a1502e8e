import { createWriteStream, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import type { RunningServer } from "./server";

// The build in workerd alone, the browser on workerd's own socket, speaking TLS itself where asked (its own
// certificate, made at start; the engines accept it): the sites of the browser tests (globalSetup.ts). `vite preview`
// is a Node server that converts every request and its answer between Node's and fetch's forms and hands it to
// workerd, over HTTPS speaking TLS and HTTP/2 too: for the journeys that hop cost about as much CPU as workerd
// answering, and the edge has no such hop. Unlike the preview, workerd compresses a page the browser accepts
// compressed, as the edge does (miniflare's entry worker asks for it), and its compressor holds a streamed page until
// it ends: Chromium's contexts ask for pages uncompressed (CHROMIUM_HEADERS, browser.ts).

/** The two workers of the build as `vite preview` runs them: the site, and the emulator behind its IDENTITY binding. */
const BUILT_WORKERS = ["dist/signin_site/wrangler.json", "dist/emulator/wrangler.json"];

function builtWorkers() {
  return BUILT_WORKERS.map((configPath) => {
    const { name } = JSON.parse(readFileSync(configPath, "utf8")) as { name: string };
    const { workerOptions, main } = unstable_getMiniflareWorkerOptions(configPath);
    if (!main) throw new Error(`${configPath} names no main module: build first (buildForE2e)`);
    // The build is one bundle per worker (vite.config.ts): its entry is the only module.
    const { modulesRules: _rules, ...options } = workerOptions;
    return {
      ...options,
      name: options.name ?? name,
      modulesRoot: dirname(main),
      modules: [{ type: "ESModule" as const, path: main }],
    };
  });
}

/**
 * Serves the build from workerd on 127.0.0.1:`port`, with its own emulator state in memory; with `https`, over TLS
 * as https://localhost:`port` (WebKit keeps no Secure cookie on http://localhost). With `logFile`, the workers' log
 * lines (one JSON object each) are written there for the tests to read (enginePage.ts, reportedErrorsSince).
 */
export async function startWorkerdSite(
  port: number,
  { https = false, logFile }: { https?: boolean; logFile?: string } = {},
): Promise<RunningServer> {
  const log = logFile ? createWriteStream(logFile) : undefined;
  const site = new Miniflare({
    workers: builtWorkers(),
    host: "127.0.0.1",
    port,
    https,
    // The worker's own JSON request log is what the tests read; miniflare's "GET /x 200" lines would only cost CPU.
    logRequests: false,
    handleStructuredLogs: ({ message }: { message: string }) => {
      log?.write(`${message}\n`);
    },
  });
  try {
    await site.ready;
  } catch (error) {
    log?.end();
    throw new Error(`workerd did not start on port ${port}: ${error instanceof Error ? error.message : error}`);
  }
  return {
    url: https ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    stop: async () => {
      await site.dispose();
      log?.end();
    },
  };
}
