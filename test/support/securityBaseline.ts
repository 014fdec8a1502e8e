// The security baseline as docs/security.md writes it out ("Headers and forms"): its tables read as data, so that
// the tests compare real responses (and public/_headers) with the documented values, never with the code's own list.

/** One row of a baseline table: the header, its documented values (none: the header is absent) and the third column. */
export interface BaselineRow {
  header: string;
  /** The allowed values in the order the doc gives them; the first is every response's unless the row says otherwise. */
  values: string[];
  /** The third column: which responses (worker) or which files, e.g. `/*` (static assets). */
  where: string;
}

/** The rows of the table under the heading `### {heading}` of `markdown`; throws when there is none or it is empty. */
export function baselineTable(markdown: string, heading: string): BaselineRow[] {
  const start = markdown.indexOf(`\n### ${heading}\n`);
  if (start === -1) throw new Error(`docs/security.md has no "### ${heading}"`);
  const lines = markdown.slice(start).split("\n").slice(2);
  const rows: BaselineRow[] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .slice(1, -1)
      .split(" | ")
      .map((cell) => cell.trim());
    if (cells[0] === "header" || /^-+$/.test(cells[0]?.replaceAll("|", "") ?? "")) continue;
    if (cells.length !== 3) throw new Error(`a baseline row needs three cells: ${line}`);
    const [header = "", value = "", where = ""] = cells;
    const name = /^`([^`]+)`$/.exec(header)?.[1];
    if (!name) throw new Error(`a baseline row names no header: ${line}`);
    const values = [...value.matchAll(/`([^`]+)`/g)].map(([, text = ""]) => text);
    if (values.length === 0 && value !== "absent") throw new Error(`a baseline row gives no value: ${line}`);
    rows.push({ header: name, values, where });
  }
  if (rows.length === 0) throw new Error(`"### ${heading}" has no table rows`);
  return rows;
}

/** What a placeholder of a documented value stands for (docs/security.md says it in words above the tables). */
const PLACEHOLDERS: Record<string, string> = {
  // 18 random bytes in base64: 24 characters, no padding.
  "{nonce}": "[A-Za-z0-9+/]{24}",
  // Nothing, or a space and the app's registered redirect origin or scheme.
  "{app}": "(?: [a-z][a-z0-9+.-]*:(?://[^\\s;]+)?)?",
};

/** A documented value as a whole-value matcher: exact text, with its placeholders as their patterns. */
export function valuePattern(value: string): RegExp {
  const parts = value.split(/(\{[a-z]+\})/);
  const source = parts
    .map((part) => {
      if (/^\{[a-z]+\}$/.test(part)) {
        const pattern = PLACEHOLDERS[part];
        if (!pattern) throw new Error(`docs/security.md uses an unknown placeholder ${part}`);
        return pattern;
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}
