import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkBrands, formatProblem } from "./check";
import { defaultBrand, rawBrands } from "./data/brands";
import { appSchemes, clients } from "./data/clients";

// `npm run brands:check`: run from the project root (npm scripts are), prints one line per problem and exits 1 on any.
const ROOT = process.cwd();
const publicPath = (path: string) => join(ROOT, "public", ...path.split("/"));

const problems = checkBrands({
  brands: rawBrands,
  defaultBrand,
  clients,
  appSchemes,
  css: readFileSync(join(ROOT, "pages/layout/site.css"), "utf8"),
  readAsset: (path) => {
    const file = publicPath(path);
    return existsSync(file) && statSync(file).isFile() ? readFileSync(file) : undefined;
  },
});

for (const problem of problems) console.error(formatProblem(problem));
const summary = `${rawBrands.length} brands and the default theme, ${Object.keys(clients).length} clients, ${(rawBrands.length + 1) * 3} assets`;
if (problems.length) {
  console.error(`\nbrands:check: ${problems.length} problem(s) in ${summary}`);
  process.exitCode = 1;
} else {
  console.log(`brands:check: ${summary}: OK`);
}
