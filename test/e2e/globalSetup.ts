import type { TestProject } from "vitest/node";
import { ensureChromium } from "./chromium";
import { buildForE2e, startPreview } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    /** One preview server per vitest worker, the worker with VITEST_POOL_ID n using the n-th (siteUrl()). */
    baseUrls: string[];
  }
}

// One build, then one preview server per worker, each with its own emulator and rate-limit counts in memory: two
// browser files run at once without seeing each other's users, mail, faults or clock (emulator.reset()).
export default async function setup(project: TestProject) {
  ensureChromium();
  buildForE2e();
  const firstPort = Number(process.env.E2E_PORT ?? 4319);
  // As vitest resolves it: the project's own maxWorkers, else the root config's (vitest.config.ts).
  const count = project.config.maxWorkers || project.vitest.config.maxWorkers || 1;
  const servers = await Promise.all(Array.from({ length: count }, (_, slot) => startPreview(firstPort + slot)));
  project.provide(
    "baseUrls",
    servers.map((server) => server.url),
  );
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
