import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Plugin } from "vite";

const VIRTUAL_ID = "virtual:release";
const RESOLVED_ID = `\0${VIRTUAL_ID}`;

/** product §9: the release label is the product version plus the build's short git hash, e.g. `v0.6.1+3d36022`. */
function releaseLabel(root = process.cwd()): string {
  const { version } = JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as { version: string };
  let hash = "nogit";
  try {
    hash = execFileSync("git", ["rev-parse", "--short=7", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    // A build outside a git checkout still gets a label; the hash part says why it has none.
  }
  return `v${version}+${hash}`;
}

/** `import release from "virtual:release"`: the label of this build, fixed when it is built. */
export function releasePlugin(): Plugin {
  const label = releaseLabel();
  return {
    name: "release-label",
    resolveId: (id) => (id === VIRTUAL_ID ? RESOLVED_ID : undefined),
    load: (id) => (id === RESOLVED_ID ? `export default ${JSON.stringify(label)};` : undefined),
  };
}
