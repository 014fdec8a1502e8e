import { defineConfig } from "vitest/config";
import { writeGeneratedDoc } from "./test/support/generatedDocs";
import { brandDataPlugin } from "./themes/vite-plugin";

// `npm test` runs every project: unit rules in Node, the site and the emulator inside workerd, and the
// browser journeys in Debian's Chromium against the built site.
export default defineConfig({
  test: {
    // test/worker/faultMatrix.test.ts prints docs/fault-matrix.md, written here (workerd cannot write files). Every
    // request's JSON summary line (worker/middleware/requestLog.ts) is read by test/worker/logs.test.ts; the test
    // output need not show it.
    onConsoleLog: (log) => !writeGeneratedDoc(log, `${process.cwd()}/`) && !log.includes('"event":"request"'),
    projects: [
      {
        plugins: [brandDataPlugin()],
        test: {
          name: "unit",
          environment: "node",
          include: ["forms/**/*.test.ts", "themes/**/*.test.ts", "test/unit/**/*.test.{ts,tsx}"],
        },
      },
      "./test/worker/vitest.config.ts",
      "./emulator/vitest.config.ts",
      "./emulator/vitest.bundle.config.ts",
      "./test/e2e/vitest.config.ts",
    ],
  },
});
