import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureChromium } from "./chromium";
import { ensureFirefox } from "./firefox";
import { buildForE2e, startPreview } from "./server";
import { ensureWebKit } from "./webkit";

declare module "vitest" {
  export interface ProvidedContext {
    /** One preview server per vitest worker, the worker with VITEST_POOL_ID n using the n-th (siteUrl()). */
    baseUrls: string[];
    /**
     * The same build over local HTTPS (HTTP/2, the locally made certificate), for the engines that need it (WebKit
     * drops Secure cookies on http://localhost): one server the Firefox and local-HTTPS files share.
     */
    httpsBaseUrl: string;
    /**
     * An HTTPS preview of its own for each WebKit (whose driver has no console): its log holds only that engine's
     * journeys, run one after another, so a page error it reports is the running journey's (enginePage.ts).
     */
    webKitSites: Record<"webkitgtk" | "wpe", { url: string; logFile: string }>;
  }
}

// One build, then one preview server per worker, each with its own emulator and rate-limit counts in memory: two
// browser files run at once without seeing each other's users, mail, faults or clock (emulator.reset()).
export default async function setup(project: TestProject) {
  // Every engine is installed here, before any test's time limit runs (apt-get can take a minute on a fresh machine).
  ensureChromium();
  ensureWebKit("webkitgtk");
  ensureWebKit("wpe");
  ensureFirefox();
  buildForE2e();
  const firstPort = Number(process.env.E2E_PORT ?? 4319);
  const logs = mkdtempSync(join(tmpdir(), "e2e-https-"));
  const webKitLogs = { webkitgtk: join(logs, "webkitgtk.log"), wpe: join(logs, "wpe.log") };
  // As vitest resolves it: the project's own maxWorkers, else the root config's (vitest.config.ts).
  const count = project.config.maxWorkers || project.vitest.config.maxWorkers || 1;
  // Every server starts here, before any test: a preview reads the build that `vite build` last pointed it to, and
  // test/e2e/productionBuild.test.ts builds elsewhere while the tests run.
  const started = await Promise.allSettled([
    ...Array.from({ length: count }, (_, slot) => startPreview(firstPort + slot)),
    startPreview(firstPort + 40, { https: true }),
    startPreview(firstPort + 41, { https: true, logFile: webKitLogs.webkitgtk }),
    startPreview(firstPort + 42, { https: true, logFile: webKitLogs.wpe }),
  ]);
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    // One did not start: the others stop, not left holding their ports for the next run.
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  const wpe = servers.pop();
  const webkitgtk = servers.pop();
  const https = servers.pop();
  project.provide(
    "baseUrls",
    servers.map((server) => server.url),
  );
  project.provide("httpsBaseUrl", https?.url ?? "");
  project.provide("webKitSites", {
    webkitgtk: { url: webkitgtk?.url ?? "", logFile: webKitLogs.webkitgtk },
    wpe: { url: wpe?.url ?? "", logFile: webKitLogs.wpe },
  });
  for (const server of [https, webkitgtk, wpe]) if (server) servers.push(server);
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
