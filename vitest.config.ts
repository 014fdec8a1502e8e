import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { japanesePhrases } from "./messages/vite-plugin.ts";
import { GENERATED_DOC_MARK } from "./test/support/generatedDocs.ts";
import LongestFirst from "./test/support/longestFirst.ts";
import { brandDataPlugin } from "./themes/vite-plugin.ts";

// `npm test` runs every project: unit rules in Node, the site and the emulator inside workerd, and the
// browser journeys in Debian's Chromium against the built site.
export default defineConfig({
  test: {
    // Files at a time, from every project: one fewer than the machine's cores, and two at least (vitest's default on
    // two cores is one): the browser files wait on pages and timers most of the time. No project turns file
    // parallelism off: vitest would run its files one at a time after all the others. Each browser file has the
    // site of its worker, each emulator file its own state (docs/testing.md).
    // `npm test`'s other lane asks for its own count (TEST_LANE_WORKERS, test/stages.mjs).
    maxWorkers: Number(process.env.TEST_LANE_WORKERS) || Math.max(2, availableParallelism() - 1),
    // A long file starts first, not last alone (test/support/longestFirst.ts).
    sequence: { sequencer: LongestFirst },
    // A passing test's console lines (every request's JSON log line…) are not shown; a failing test's are.
    silent: "passed-only",
    // test/worker/faultMatrix.test.ts prints docs/fault-matrix.md; the generatedDocs reporter writes it (workerd
    // cannot write files). stageTimes prints the time of each project and the slowest files.
    reporters: ["default", "./test/support/generatedDocsReporter.ts", "./test/support/stageTimes.ts"],
    onConsoleLog: (log) => !log.startsWith(GENERATED_DOC_MARK),
    projects: [
      {
        // The strings the worker renders: messages/ and the brand data with their phrase boundaries marked.
        plugins: [japanesePhrases(), brandDataPlugin()],
        test: {
          name: "unit",
          // One module graph for all the files of a worker, as in the workerd projects: each file re-importing React,
          // zod and the brand data made the project twice as long (38 → 20 CPU-seconds alone). Spies are restored
          // after each test (vi.restoreAllMocks); no file keeps other state.
          isolate: false,
          environment: "node",
          setupFiles: ["test/support/phraseBreaks.setup.ts"],
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
