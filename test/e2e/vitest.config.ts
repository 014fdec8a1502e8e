import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// As a project of the root config this file's folder is the root; every path is therefore absolute.
const fromRoot = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export default defineConfig({
  root: fromRoot(""),
  test: {
    name: "e2e",
    environment: "node",
    dir: fromRoot("test/e2e"),
    globalSetup: [fromRoot("test/e2e/globalSetup.ts")],
    // The pages' text is compared as it reads, without its phrase-boundary markers (test/support/phraseBreaks.setup.ts).
    setupFiles: [fromRoot("test/support/phraseBreaks.setup.ts")],
    testTimeout: 60_000,
    hookTimeout: 240_000,
  },
});
