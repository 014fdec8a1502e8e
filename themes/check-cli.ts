import { checkBrands, formatProblem, landedInput } from "./check";
import { rawBrands } from "./data/brands";
import { clients } from "./data/clients";

// `npm run brands:check`: run from the project root (npm scripts are), prints one line per problem and exits 1 on any.
const problems = checkBrands(landedInput(process.cwd()));

for (const problem of problems) console.error(formatProblem(problem));
const summary = `${rawBrands.length} brands and the default theme, ${Object.keys(clients).length} clients, ${(rawBrands.length + 1) * 3} assets`;
if (problems.length) {
  console.error(`\nbrands:check: ${problems.length} problem(s) in ${summary}`);
  process.exitCode = 1;
} else {
  console.log(`brands:check: ${summary}: OK`);
}
