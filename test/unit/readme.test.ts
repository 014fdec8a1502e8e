import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rawBrands } from "../../themes/data/brands";

// The README's numbers and commands are facts of the repository: each is checked against the data or the code that
// makes it true, so that the README cannot drift from them.

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const readme = read("README.md");
const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);

describe("the README", () => {
  it("counts the brands of the brand data", () => {
    expect(readme).toContain(`shared by ${rawBrands.length} white-label financial brands`);
  });

  it("names the Node version package.json requires", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const [, major, minor] = /^>=(\d+)\.(\d+)\.0$/.exec(engines) ?? [];
    expect(readme).toContain(`Node ${major}.${minor}+`);
  });

  it("lists every npm script, and names none that does not exist", () => {
    const named = new Set([...readme.matchAll(/`npm (?:run )?([a-z][\w:-]*)/g)].map((match) => match[1]));
    // `npm install` and `npm ci` are npm's own commands, not scripts.
    const missing = scripts.filter((script) => !named.has(script) && !readme.includes(`\`${script}\``));
    expect(missing).toEqual([]);
    const unknown = [...named].filter((name) => name && !scripts.includes(name) && !["install", "ci"].includes(name));
    expect(unknown).toEqual([]);
  });

  it("says how many cases the fuzz sends, as its runner does", () => {
    const runs = /FUZZ_RUNS \?\? ([\d_]+)\)/.exec(read("tools/fuzz/run.ts"))?.[1]?.replaceAll("_", "");
    expect(readme).toContain(`${Number(runs).toLocaleString("en")} fuzzed requests`);
  });

  it("gives the line-break gallery's widths as it takes them", () => {
    const widths = /const WIDTHS = \[(\d+), (\d+)\]/.exec(read("tools/gallery/lineBreaks.ts"));
    expect(readme).toContain(`${widths?.[1]} and ${widths?.[2]} px`);
  });

  it("serves the dev site on the port Vite is given (its default, 5173, unless vite.config.ts names one)", () => {
    const port = /\bport:\s*(\d+)/.exec(read("vite.config.ts"))?.[1] ?? "5173";
    const ports = new Set([...readme.matchAll(/localhost:(\d+)/g)].map((match) => match[1]));
    expect([...ports]).toEqual([port]);
  });
});
