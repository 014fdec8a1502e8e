// `npm test`: lint, typecheck, the brand check, then every vitest project, each stage timed, stopping at the first
// that fails. Arguments go to vitest (`npm test -- --project e2e`). The time of each vitest project and of the
// slowest files is printed by test/support/stageTimes.ts.
import { spawnSync } from "node:child_process";

const stages = [
  ["lint", ["npm", "run", "--silent", "lint"]],
  ["typecheck", ["npm", "run", "--silent", "typecheck"]],
  ["brand check", ["npm", "run", "--silent", "brands:check"]],
  ["vitest", ["npx", "vitest", "run", ...process.argv.slice(2)]],
];

// Vite warns on every config load that the native config loader would want file extensions on imports.
const env = { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: "true" };
const times = [];
let failed;
for (const [name, [command, ...args]] of stages) {
  const start = Date.now();
  const { status } = spawnSync(command, args, { stdio: "inherit", env });
  times.push([name, (Date.now() - start) / 1000]);
  if (status !== 0) {
    failed = name;
    break;
  }
}
const total = times.reduce((sum, [, seconds]) => sum + seconds, 0);
console.log(`\nnpm test stages: ${times.map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join(", ")}`);
console.log(`npm test: ${failed ? `FAILED at ${failed}` : "passed"} in ${total.toFixed(1)} s`);
process.exit(failed ? 1 : 0);
