import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { workerUploadSize } from "../../test/bench/workerUpload";

// `npm run bench:size [-- --files] [-- --top N]`: what the worker's upload is made of. Builds production with a
// source map (tools/bench/vite.sourcemap.config.ts), gives each byte of the bundle to the module the map says it came
// from, and prints, per package (or per file with --files), its raw bytes, its bytes gzipped alone, and what it adds
// to the gzipped bundle (the bundle's gzip size less that of the bundle without it: the figure a cut saves, near
// enough). Every figure is gzip level 9, as the budget counts (test/bench/workerUpload.ts).

const OUT = ".bench-build/size";
const DEPLOY_POINTER = ".wrangler/deploy/config.json";
const args = process.argv.slice(2);
const byFile = args.includes("--files");
const top = args.includes("--top") ? Number(args[args.indexOf("--top") + 1]) : 40;
const gzip = (text: string) => gzipSync(text, { level: 9 }).length;

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The source map's segments as [generated line, generated column, source index], in order (VLQ decoded). */
function segments(mappings: string): Array<[number, number, number]> {
  const found: Array<[number, number, number]> = [];
  let source = 0;
  mappings.split(";").forEach((line, lineIndex) => {
    let column = 0;
    for (const segment of line.split(",")) {
      if (!segment) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0] ?? 0;
      if (values.length > 1) source += values[1] ?? 0;
      found.push([lineIndex, column, values.length > 1 ? source : -1]);
    }
  });
  return found;
}

/** A source's group: its package (or file, with --files); the build's own generated text is "(generated)". */
function groupOf(source: string | undefined): string {
  if (source === undefined) return "(generated: brand data, site CSS, islands manifest, module glue)";
  const path = source.replace(/^(\.\.\/)+/, "").replace(/^.*?node_modules\//, "node_modules/");
  if (byFile) return path;
  const pkg = path.match(/^node_modules\/((@[^/]+\/)?[^/]+)/);
  return pkg ? (pkg[1] as string) : path.split("/").slice(0, 2).join("/");
}

rmSync(OUT, { recursive: true, force: true });
const pointer = existsSync(DEPLOY_POINTER) ? readFileSync(DEPLOY_POINTER) : undefined;
const build = spawnSync(
  "npx",
  ["vite", "build", "--config", "tools/bench/vite.sourcemap.config.ts", "--outDir", OUT, "--logLevel", "warn"],
  {
    env: { ...process.env, NODE_ENV: "production", CLOUDFLARE_ENV: "", WRANGLER_SEND_METRICS: "false" },
    stdio: "inherit",
  },
);
if (pointer) writeFileSync(DEPLOY_POINTER, pointer);
if (build.status !== 0) throw new Error(`production build failed (exit ${build.status})`);

const workerDir = join(OUT, "signin_site");
const code = readFileSync(join(workerDir, "index.js"), "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "");
const map = JSON.parse(readFileSync(join(workerDir, "index.js.map"), "utf8")) as {
  sources: string[];
  mappings: string;
};
const lineStarts = [0];
for (let at = code.indexOf("\n"); at >= 0; at = code.indexOf("\n", at + 1)) lineStarts.push(at + 1);
const owner = new Array<string>(code.length).fill(groupOf(undefined));
const found = segments(map.mappings);
found.forEach(([line, column, source], index) => {
  const start = (lineStarts[line] ?? code.length) + column;
  const next = found[index + 1];
  const end = next ? (lineStarts[next[0]] ?? code.length) + next[1] : code.length;
  for (let at = start; at < end && at < code.length; at++)
    owner[at] = groupOf(source < 0 ? undefined : map.sources[source]);
});

const total = gzip(code);
const groups = [...new Set(owner)].map((group) => {
  let alone = "";
  let rest = "";
  for (let at = 0; at < code.length; at++) {
    if (owner[at] === group) alone += code[at];
    else rest += code[at];
  }
  return { group, raw: Buffer.byteLength(alone), alone: gzip(alone), adds: total - gzip(rest) };
});
groups.sort((a, b) => b.adds - a.adds);

const { files } = workerUploadSize(workerDir);
console.log(`index.js (one of the ${files} module(s) uploaded): ${Buffer.byteLength(code)} B, ${total} B gzip\n`);
console.log(
  `${"adds".padStart(7)} ${"alone".padStart(7)} ${"raw".padStart(8)}  ${byFile ? "file" : "package or folder"}`,
);
for (const { group, raw, alone, adds } of groups.slice(0, top))
  console.log(`${String(adds).padStart(7)} ${String(alone).padStart(7)} ${String(raw).padStart(8)}  ${group}`);
rmSync(OUT, { recursive: true, force: true });
