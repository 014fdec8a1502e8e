// `npm test`: lint, typecheck and the brand check one after another, beside every vitest project, each stage timed
// (wall time and CPU-seconds, the suite's total CPU-seconds at the end).
// The static checks run while vitest builds the site and starts its servers (mostly one core's work); each check's
// output is printed as soon as it ends, so a failure shows at once (Ctrl-C stops the rest), and the run fails if any
// stage failed. Arguments go to vitest (`npm test -- --project e2e`). The time of each vitest project and of the
// slowest files is printed by test/support/stageTimes.ts.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const staticStages = [
  ["lint", ["npm", "run", "--silent", "lint"]],
  ["typecheck", ["npm", "run", "--silent", "typecheck"]],
  ["brand check", ["npm", "run", "--silent", "brands:check"]],
];

// Vite warns on every config load that the native config loader would want file extensions on imports.
const env = { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: "true" };
const started = Date.now();
const times = [];

/**
 * The CPU-seconds (user + system) of this process's children that have ended, their own children included: the
 * kernel adds a process's time to its parent's when the parent reaps it (Linux /proc/self/stat, cutime and cstime,
 * in clock ticks of 1/100 s). Read when a stage ends, the growth since the last reading is that stage's CPU time,
 * browsers, servers and workers included. Null where /proc is missing.
 */
function childCpuSeconds() {
  try {
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}
let cpuSoFar = childCpuSeconds();

/** Runs a command, its output shown as it comes or, for a quiet one, when it ends; answers its exit status. */
function run(name, [command, ...args], { quiet }) {
  const start = Date.now();
  const child = spawn(command, args, { env, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const cpu = childCpuSeconds();
      times.push([name, (Date.now() - start) / 1000, cpu === null ? null : cpu - cpuSoFar]);
      cpuSoFar = cpu;
      if (output) process.stdout.write(`\n[${name}${code === 0 ? "" : ": FAILED"}]\n${output}`);
      resolve(code ?? 1);
    }),
  );
}

const vitest = run("vitest", ["npx", "vitest", "run", ...process.argv.slice(2)], { quiet: false });
const failed = [];
for (const [name, command] of staticStages) if ((await run(name, command, { quiet: true })) !== 0) failed.push(name);
if ((await vitest) !== 0) failed.push("vitest");

const wall = (Date.now() - started) / 1000;
const cpuOf = (seconds) => (seconds === null ? "" : `, ${seconds.toFixed(0)} CPU-s`);
const stages = times.map(([name, seconds, cpu]) => `${name} ${seconds.toFixed(1)} s${cpuOf(cpu)}`);
const totalCpu = times.every(([, , cpu]) => cpu !== null) ? times.reduce((sum, [, , cpu]) => sum + cpu, 0) : null;
console.log(`\nnpm test stages: ${stages.join("; ")}`);
console.log(
  `npm test: ${failed.length ? `FAILED (${failed.join(", ")})` : "passed"} in ${wall.toFixed(1)} s${cpuOf(totalCpu)}`,
);
process.exit(failed.length ? 1 : 0);
