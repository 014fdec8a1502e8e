import { writeFileSync } from "node:fs";

// Documents a test generates (the fault matrix): the test, inside workerd, prints the document after a
// mark; the worker project's config, in Node, writes it to docs/.

export const GENERATED_DOC_MARK = "GENERATED-DOC ";

/** Writes a printed document (`GENERATED-DOC docs/name.md\n…`); answers whether the log line was one. */
export function writeGeneratedDoc(log: string, root: string): boolean {
  if (!log.startsWith(GENERATED_DOC_MARK)) return false;
  const newline = log.indexOf("\n");
  const path = log.slice(GENERATED_DOC_MARK.length, newline).trim();
  if (!/^docs\/[\w-]+\.md$/.test(path)) throw new Error(`a generated document must be docs/<name>.md, not ${path}`);
  writeFileSync(`${root}${path}`, log.slice(newline + 1));
  return true;
}
