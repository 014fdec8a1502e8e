import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureChromium } from "./chromium";
import { ensureFirefox } from "./firefox";
import { buildForE2e, startPreview } from "./server";
import { ensureWebKit } from "./webkit";
import { startWorkerdSite } from "./workerdSite";

declare module "vitest" {
  export interface ProvidedContext {
    /** One site per vitest worker, the worker with VITEST_POOL_ID n using the n-th (siteUrl()). */
    baseUrls: string[];
    /**
     * The build over local HTTPS (workerd's TLS, its certificate made at start) for Firefox, whose file uses it alone:
     * WebKit and Firefox need HTTPS for the site's Secure cookies on localhost.
     */
    httpsBaseUrl: string;
    /** `vite preview --https` (HTTP/2, the locally made certificate), as `npm run dev:https` serves: localHttps.test.ts. */
    previewHttpsUrl: string;
    /**
     * An HTTPS site of its own for each WebKit (whose driver has no console): its log holds only that engine's
     * journeys, run one after another, so a page error it reports is the running journey's (enginePage.ts).
     */
    webKitSites: Record<"webkitgtk" | "wpe", { url: string; logFile: string }>;
  }
}

// One build, then one site per worker, each with its own emulator and rate-limit counts in memory: two browser files
// run at once without seeing each other's users, mail, faults or clock (emulator.reset()). Every site is the build in
// workerd alone (workerdSite.ts), no Node proxy in front, but the one `vite preview --https` that localHttps.test.ts
// tests.
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
  // Every server starts here, before any test: workerd and the preview read the build as it is now, and
  // test/e2e/productionBuild.test.ts builds elsewhere while the tests run.
  const started = await Promise.allSettled([
    ...Array.from({ length: count }, (_, slot) => startWorkerdSite(firstPort + slot)),
    startWorkerdSite(firstPort + 40, { https: true }),
    startWorkerdSite(firstPort + 41, { https: true, logFile: webKitLogs.webkitgtk }),
    startWorkerdSite(firstPort + 42, { https: true, logFile: webKitLogs.wpe }),
    startPreview(firstPort + 43, { https: true }),
  ]);
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stopAll = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(logs, { recursive: true, force: true });
  };
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    // One did not start: the others stop, not left holding their ports for the next run.
    await stopAll();
    throw failure.reason;
  }
  const urls = servers.map((server) => server.url);
  const [preview, wpe, webkitgtk, https] = [urls.pop(), urls.pop(), urls.pop(), urls.pop()];
  project.provide("baseUrls", urls);
  project.provide("httpsBaseUrl", https ?? "");
  project.provide("previewHttpsUrl", preview ?? "");
  project.provide("webKitSites", {
    webkitgtk: { url: webkitgtk ?? "", logFile: webKitLogs.webkitgtk },
    wpe: { url: wpe ?? "", logFile: webKitLogs.wpe },
  });
  return stopAll;
}
