import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// A clone of the project alone answers every reference in it: a citation of `product §N` or `architecture §N` names a
// section that docs/product.md or docs/architecture.md has, and no file names a path outside the repository, or a
// Markdown link to a file that is not there.

const root = resolve(import.meta.dirname, "../..");

/** Every file git tracks or would track (untracked but not ignored), with text we write: code, docs, configuration. */
function sourceFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((path) => /\.(ts|tsx|mjs|js|md|toml|json|css|html|yml|yaml|sh)$|(^|\/)run$/.test(path))
    .filter((path) => existsSync(join(root, path)) && !path.endsWith("package-lock.json"));
}

/** The `## §N` sections a doc has. */
function sections(doc: string): Set<string> {
  const text = readFileSync(join(root, doc), "utf8");
  return new Set([...text.matchAll(/^## §(\d+)\b/gm)].map((match) => match[1] ?? ""));
}

const files = sourceFiles();
const texts = new Map(files.map((path) => [path, readFileSync(join(root, path), "utf8")]));

/** Each line of every file that matches `pattern`, as `path:line: text`. */
function linesMatching(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const [path, text] of texts)
    text.split("\n").forEach((line, index) => {
      if (pattern.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
    });
  return found;
}

describe("references", () => {
  it("reads the repository's files (a control: the list is not empty and holds the docs)", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain("docs/product.md");
    expect(files).toContain("docs/architecture.md");
  });

  for (const [name, doc] of [
    ["product", "docs/product.md"],
    ["architecture", "docs/architecture.md"],
  ] as const) {
    it(`cites only sections docs/${name}.md has`, () => {
      const have = sections(doc);
      expect(have.size).toBeGreaterThan(5);
      const cited = new RegExp(`\\b${name} §(\\d+)`, "g");
      const missing: string[] = [];
      let count = 0;
      for (const [path, text] of texts)
        for (const match of text.matchAll(cited)) {
          count += 1;
          if (!have.has(match[1] ?? "")) missing.push(`${path}: ${match[0]}`);
        }
      expect(count, `citations of ${name} §`).toBeGreaterThan(name === "product" ? 300 : 50);
      expect(missing).toEqual([]);
    });
  }

  it("cites neither the original specification nor its design document, which live outside the repository", () => {
    expect(linesMatching(/\b(SPEC|ARCHITECTURE)\s§/)).toEqual([]);
  });

  it("names no path outside the repository", () => {
    expect(linesMatching(/\.\.\/shared\b/)).toEqual([]);
  });

  it("links, in every Markdown file, only to files that are there, inside the repository", () => {
    const broken: string[] = [];
    for (const [path, text] of texts) {
      if (!path.endsWith(".md")) continue;
      for (const match of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = match[1] ?? "";
        if (/^[a-z]+:/i.test(target)) continue;
        const absolute = normalize(join(root, dirname(path), target));
        if (relative(root, absolute).startsWith("..") || !existsSync(absolute)) broken.push(`${path}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
