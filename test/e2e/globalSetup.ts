import type { TestProject } from "vitest/node";
import { ensureChromium } from "./chromium";
import { buildForE2e, startPreview } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  ensureChromium();
  buildForE2e();
  const server = await startPreview(Number(process.env.E2E_PORT ?? 4319));
  project.provide("baseUrl", server.url);
  return server.stop;
}
