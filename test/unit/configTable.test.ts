import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type WranglerConfig, wranglerConfigs } from "./wranglerConfig";

// The "Configuration and secrets" table of docs/configuration.md has
// a row per variable or secret and a column per environment. It must say what wrangler.toml says, so that it cannot
// drift: every var of every environment is in the table with its exact value, a secret cell names the command that
// sets it for its environment, and a var that only the dev environment sets is a secret everywhere else (the worker
// reads it there too).

const configurationDoc = "docs/configuration.md";
const configuration = readFileSync(resolve(__dirname, "../..", configurationDoc), "utf8");

/** The first table under a `## ` heading, as rows of cells (escaped pipes `\|` stay inside their cell). */
function tableUnder(heading: string): string[][] {
  const section = configuration.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`${configurationDoc} has no "## ${heading}" section`);
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"));
  return lines
    .slice(start, end === -1 ? undefined : end)
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The text of a cell's leading code span (`""` stands for the empty string), or undefined if it has none. */
function leadingCode(cell: string): string | undefined {
  const code = /^`([^`]*)`/.exec(cell)?.[1];
  return code === '""' ? "" : code;
}

const environments = [
  { column: "production", config: wranglerConfigs.production, flag: "" },
  { column: "staging", config: wranglerConfigs.staging, flag: " --env stg" },
  { column: "local", config: wranglerConfigs.dev, flag: undefined },
] as const;

const [header = [], ...rows] = tableUnder("Configuration and secrets");
const columnOf = (name: string) => header.findIndex((cell) => cell.startsWith(name));
const rowOf = (name: string) => rows.find((row) => row[0] === `\`${name}\``);
const vars = (config: WranglerConfig) => config.vars as Record<string, unknown>;

describe("configuration table (docs/configuration.md)", () => {
  it("has a column per environment, headed by its worker's name", () => {
    expect(header[0]).toBe("name");
    for (const { column, config } of environments) {
      const index = columnOf(column);
      expect(index, `a "${column}" column`).toBeGreaterThan(0);
      expect(header[index], `the ${column} column names its worker`).toContain(`\`${config.name}\``);
    }
  });

  for (const { column, config } of environments)
    it(`shows every var of the ${column} environment with its value in wrangler.toml`, () => {
      const index = columnOf(column);
      for (const [name, value] of Object.entries(vars(config))) {
        const row = rowOf(name);
        expect(row, `a row for ${name}`).toBeDefined();
        expect(leadingCode(row?.[index] ?? ""), `${name} in ${column}`).toBe(String(value));
      }
    });

  it("claims no value, secret or absence that wrangler.toml does not bear out", () => {
    for (const row of rows) {
      const name = /^`([A-Z0-9_]+)`$/.exec(row[0] ?? "")?.[1];
      expect(name, `the first cell names a variable: ${row[0]}`).toBeDefined();
      for (const { column, config, flag } of environments) {
        const cell = row[columnOf(column)] ?? "";
        const value = vars(config)[name ?? ""];
        if (cell.startsWith("secret")) {
          expect(value, `${name} is a var in ${column}, not a secret`).toBeUndefined();
          expect(flag, `${name}: the local environment takes no secrets`).toBeDefined();
          expect(cell, `${name}: the command that sets it in ${column}`).toContain(
            `\`npx wrangler secret put ${name}${flag}\``,
          );
        } else if (cell === "—") expect(value, `${name} is set in ${column}`).toBeUndefined();
        else expect(leadingCode(cell), `${name} in ${column}`).toBe(value === undefined ? undefined : String(value));
      }
    }
  });

  it("names as a secret in production and staging every var that only the dev environment sets", () => {
    const devOnly = Object.keys(vars(wranglerConfigs.dev)).filter(
      (name) => !(name in vars(wranglerConfigs.production)) && !(name in vars(wranglerConfigs.staging)),
    );
    expect(devOnly).toContain("SESSION_KEYS");
    for (const name of devOnly)
      for (const column of ["production", "staging"])
        expect(rowOf(name)?.[columnOf(column)], `${name} in ${column}`).toMatch(/^secret/);
  });
});

describe("local configuration files", () => {
  /** Whether git's ignore rules cover a path (whether or not the file exists or is tracked). */
  function ignored(path: string): boolean {
    const check = spawnSync("git", ["check-ignore", "--quiet", "--no-index", path], {
      cwd: resolve(__dirname, "../.."),
    });
    if (check.status !== 0 && check.status !== 1) throw new Error(`git check-ignore failed: ${check.stderr}`);
    return check.status === 0;
  }

  it("keeps .dev.vars and every .dev.vars.<environment> out of git, and .dev.vars.example in it", () => {
    expect(
      [".dev.vars", ".dev.vars.dev", ".dev.vars.stg", ".dev.vars.production"].filter((path) => !ignored(path)),
    ).toEqual([]);
    expect(ignored(".dev.vars.example")).toBe(false);
  });

  it("has .dev.vars.example name every variable and secret of the table", () => {
    const example = readFileSync(resolve(__dirname, "../../.dev.vars.example"), "utf8");
    const names = rows.map((row) => /^`([A-Z0-9_]+)`$/.exec(row[0] ?? "")?.[1] ?? "");
    expect(names.filter((name) => !example.includes(name))).toEqual([]);
  });
});
