import type { UserConsoleLog } from "vitest";
import type { Reporter } from "vitest/node";
import { writeGeneratedDoc } from "./generatedDocs";

/**
 * Writes the documents tests print (test/support/generatedDocs.ts). A reporter sees every console line, a passing
 * test's too, which the default reporter does not show (`silent: "passed-only"`).
 */
export default class GeneratedDocs implements Reporter {
  onUserConsoleLog(log: UserConsoleLog): void {
    writeGeneratedDoc(log.content, `${process.cwd()}/`);
  }
}
