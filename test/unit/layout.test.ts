import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// architecture §2: the rooms of the repository and the one way imports flow between them, checked on the
// source itself. Type-only imports count: a cycle of types is still a cycle a reader has to untangle.

const ROOT = resolve(__dirname, "../..");
const ROOMS = ["worker", "pages", "islands", "forms", "themes", "messages", "emulator"];
const SOURCE = /\.(ts|tsx|mts)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".d.mts") ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function resolveImport(from: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\?.*$/, ""));
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.mts`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
  ];
  return candidates.find((candidate) => known.has(candidate));
}

function importGraph(): Map<string, string[]> {
  const files = ROOMS.flatMap((room) => sourceFiles(join(ROOT, room)));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)]
      .map((match) => resolveImport(file, match[1] ?? match[2] ?? match[3] ?? "", known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's files, found by a depth-first walk (each cycle once, from the file where the walk met it). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)).map((f) => relative(ROOT, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

const graph = importGraph();
const roomOf = (file: string) => relative(ROOT, file).split("/")[0] ?? "";
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function importsBetween(predicate: (from: string, to: string) => boolean): string[] {
  return [...graph.entries()].flatMap(([from, targets]) =>
    targets
      .filter((to) => !isTest(from) && predicate(from, to))
      .map((to) => `${relative(ROOT, from)} → ${relative(ROOT, to)}`),
  );
}

describe("the repository's layout (architecture §2)", () => {
  it("reads the source it checks", () => {
    expect(graph.size).toBeGreaterThan(100);
    const routeTable = [...graph.keys()].find((file) => file.endsWith("worker/routes.tsx"));
    expect(graph.get(routeTable ?? "")?.length).toBeGreaterThan(10);
  });

  it("has no import cycle anywhere, type-only imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself)", () => {
    const a = "/x/a.ts";
    const b = "/x/b.ts";
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toHaveLength(1);
  });

  it("has route modules that never import each other (shared steps live in worker/flow/)", () => {
    const inRoutes = (file: string) => relative(ROOT, file).startsWith("worker/routes/");
    expect(importsBetween((from, to) => inRoutes(from) && inRoutes(to))).toEqual([]);
  });

  it.each([
    ["messages", ["worker", "pages", "islands", "forms", "themes", "emulator"]],
    ["forms", ["worker", "pages", "islands", "emulator"]],
    ["themes", ["worker", "pages", "islands", "emulator"]],
    ["islands", ["worker", "pages", "emulator"]],
    ["pages", ["worker", "emulator"]],
    ["worker", ["emulator"]],
  ])("keeps %s from importing %j (worker → pages → islands → forms, themes → messages)", (room, forbidden) => {
    expect(importsBetween((from, to) => roomOf(from) === room && forbidden.includes(roomOf(to)))).toEqual([]);
  });
});

describe("the one message module (STYLE: Japanese UI text lives in one catalogue)", () => {
  // Hiragana, katakana, CJK ideographs and full-width forms: any of them is UI text.
  const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]/;
  const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");

  it.each(["worker", "pages", "islands", "forms"])("holds no Japanese text in %s outside messages/", (room) => {
    const offenders = sourceFiles(join(ROOT, room))
      .filter((file) => !isTest(file))
      .filter((file) => JAPANESE.test(withoutComments(readFileSync(file, "utf8"))))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
