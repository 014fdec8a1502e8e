import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { baselineTable } from "../support/securityBaseline";

// Static assets are the platform's (Workers Assets applies public/_headers); the workerd tests have no assets
// directory to fetch them from. Their baseline in docs/security.md ("Static assets") is compared here, value by
// value and both ways, with the file the platform applies.

const fromRoot = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** public/_headers as Workers Assets reads it: a path pattern, then its indented `Name: value` lines. */
function headersFile(text: string): Map<string, Map<string, string>> {
  const rules = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      current = new Map();
      rules.set(line.trim(), current);
      continue;
    }
    const colon = line.indexOf(":");
    expect(current, `a header line before any path: ${line}`).toBeDefined();
    current?.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return rules;
}

describe("static assets' headers (public/_headers) as docs/security.md writes them", () => {
  const documented = baselineTable(fromRoot("docs/security.md"), "Static assets (`public/_headers`)");
  const file = headersFile(fromRoot("public/_headers"));

  it("documents every header of the file with its value and its files", () => {
    const fromFile = [...file].flatMap(([pattern, headers]) =>
      [...headers].map(([header, value]) => `${pattern} ${header}: ${value}`),
    );
    const fromDoc = documented.map(({ header, values, where }) => {
      expect(values, `${header} has one value`).toHaveLength(1);
      const pattern = /^`([^`]+)`/.exec(where)?.[1];
      expect(pattern, `${header} names its files`).toBeDefined();
      return `${pattern} ${header}: ${values[0]}`;
    });
    expect(fromFile.length).toBeGreaterThan(0);
    expect(fromDoc.sort()).toEqual(fromFile.sort());
  });
});
