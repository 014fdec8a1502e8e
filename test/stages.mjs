// `npm test`: every check and vitest project, in two lanes side by side, each stage timed (wall time), and the
// CPU-seconds the machine was busy during the run.
// - The browser lane: `vitest run --project e2e`, which builds the site, starts its servers and drives the engines.
//   The browsers wait on pages, timers and each other; on two cores that leaves about a fifth of the CPU idle.
// - The other lane fills it: lint, typecheck and the brand check, then every other vitest project (one worker on two
//   cores, half the cores on more). Run after the browsers instead, they would add their whole time at the end.
// A quiet stage's output is printed as soon as it ends, so a failure shows at once (Ctrl-C stops the rest), and the
// run fails if any stage failed. With arguments, one `vitest run` gets them (`npm test -- --project e2e`) beside the
// static checks. The time of each vitest project and of the slowest files is printed by test/support/stageTimes.ts.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

const staticStages = [
  ["lint", ["npm", "run", "--silent", "lint"]],
  ["typecheck", ["npm", "run", "--silent", "typecheck"]],
  ["brand check", ["npm", "run", "--silent", "brands:check"]],
];

const started = Date.now();
const times = [];

/**
 * The CPU-seconds the whole machine has been busy so far (Linux /proc/stat: user, nice, system, irq, softirq and
 * steal of every core, in clock ticks of 1/100 s), or null where /proc is missing. What a run adds is the suite's CPU
 * time on a machine that runs nothing else, as CI's does: browsers, servers and workers included, which a child's
 * own accounting misses once they are reparented.
 */
function machineCpuSeconds() {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
      .split("\n")[0]
      .split(/\s+/);
    return [user, nice, system, irq, softirq, steal].reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    return null;
  }
}
const cpuAtStart = machineCpuSeconds();

/** Runs a command, its output shown as it comes or, for a quiet one, when it ends; answers its exit status. */
function run(name, [command, ...args], { quiet, env = {} }) {
  const start = Date.now();
  const child = spawn(command, args, {
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: { ...process.env, ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      times.push([name, (Date.now() - start) / 1000]);
      if (output) process.stdout.write(`\n[${name}${code === 0 ? "" : ": FAILED"}]\n${output}`);
      resolve(code ?? 1);
    }),
  );
}

const args = process.argv.slice(2);
// The other lane's vitest workers: one on two cores (the browsers' lane takes the rest), half the cores on more.
const restWorkers = Math.max(1, Math.floor(availableParallelism() / 2));
const vitestStages = args.length
  ? [["vitest", ["npx", "vitest", "run", ...args]]]
  : [
      ["vitest: browsers", ["npx", "vitest", "run", "--project", "e2e"]],
      ["vitest: the rest", ["npx", "vitest", "run", "--project", "!e2e"], { TEST_LANE_WORKERS: String(restWorkers) }],
    ];
const [loud, ...quiet] = vitestStages;
const failed = [];
const stage = async ([name, command, env], options) => {
  if ((await run(name, command, { ...options, env })) !== 0) failed.push(name);
};
await Promise.all([
  stage(loud, { quiet: false }),
  (async () => {
    for (const command of [...staticStages, ...quiet]) await stage(command, { quiet: true });
  })(),
]);

const wall = (Date.now() - started) / 1000;
const cpuAtEnd = machineCpuSeconds();
const cpu =
  cpuAtStart === null || cpuAtEnd === null ? "" : `, the machine busy ${(cpuAtEnd - cpuAtStart).toFixed(0)} CPU-s`;
console.log(`\nnpm test stages: ${times.map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join(", ")}`);
console.log(`npm test: ${failed.length ? `FAILED (${failed.join(", ")})` : "passed"} in ${wall.toFixed(1)} s${cpu}`);
process.exit(failed.length ? 1 : 0);
