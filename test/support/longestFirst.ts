import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that start before the rest of their project, longest first. On a fresh clone vitest knows no durations and
 * orders a project's files by size; these are small files that run long: each engine's file is some 20 lines that run
 * every journey of engineJourneys.ts (80–150 s), `screens.test.ts` 225 browser tests from about 150 lines (60 s).
 * Started last, such a file runs alone on one core at the end of the run.
 */
const LONG_FOR_THEIR_SIZE = [
  "test/e2e/firefox.test.ts",
  "test/e2e/webkit.test.ts",
  "test/e2e/chromium.test.ts",
  "test/e2e/wpe.test.ts",
  "test/e2e/screens.test.ts",
];

/** vitest's order (project by project; failed, then longest by the last run, else largest first), with the files above first in theirs. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONG_FOR_THEIR_SIZE.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return index === -1 ? LONG_FOR_THEIR_SIZE.length : index;
    };
    // vitest keeps a project's files together; within each, a listed file moves forward (the sort is stable).
    const byProject = new Map<string, TestSpecification[]>();
    for (const spec of sorted) byProject.set(spec.project.name, [...(byProject.get(spec.project.name) ?? []), spec]);
    return [...byProject.values()].flatMap((specs) => specs.sort((a, b) => rank(a) - rank(b)));
  }
}
