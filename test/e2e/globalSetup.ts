import type { TestProject } from "vitest/node";
import { ensureChromium } from "./chromium";
import { ensureFirefox } from "./firefox";
import { buildForE2e, startPreview } from "./server";
import { ensureWebKit } from "./webkit";

declare module "vitest" {
  export interface ProvidedContext {
    /** One preview server per vitest worker, the worker with VITEST_POOL_ID n using the n-th (siteUrl()). */
    baseUrls: string[];
  }
}

// One build, then one preview server per worker, each with its own emulator and rate-limit counts in memory: two
// browser files run at once without seeing each other's users, mail, faults or clock (emulator.reset()).
export default async function setup(project: TestProject) {
  // Every engine is installed here, before any test's time limit runs (apt-get can take a minute on a fresh machine).
  ensureChromium();
  ensureWebKit();
  ensureFirefox();
  buildForE2e();
  const firstPort = Number(process.env.E2E_PORT ?? 4319);
  // As vitest resolves it: the project's own maxWorkers, else the root config's (vitest.config.ts).
  const count = project.config.maxWorkers || project.vitest.config.maxWorkers || 1;
  const started = await Promise.allSettled(Array.from({ length: count }, (_, slot) => startPreview(firstPort + slot)));
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    // One did not start: the others stop, not left holding their ports for the next run.
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  project.provide(
    "baseUrls",
    servers.map((server) => server.url),
  );
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
