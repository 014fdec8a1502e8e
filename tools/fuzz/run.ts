import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import fc from "fast-check";
import { buildForE2e } from "../../test/e2e/server";
import { startWorkerdSite } from "../../test/e2e/workerdSite";
import { discoverTargets, type Send, siteProperty } from "../../test/fuzz/fuzzing";
import { sealedCookie } from "../../test/support/forms";
import { type ScreenState, screenCases } from "../../test/support/screens";
import { GUNGNIR, PARTNER } from "../../test/support/vocabulary";
import { routeTable } from "../../worker/routes";
import type { SealedCookieName } from "../../worker/session/cookies";

// `npm run fuzz`: the fuzzing of test/fuzz/fuzzing.ts at length, against the built site and the emulator on the
// local workerd. FUZZ_RUNS cases (12,000 unless set), FUZZ_SEED to replay a run (.ci/run derives it from the commit),
// FUZZ_PORT for workerd's port. Each stage prints its wall time; the last line says how many cases ran and how many
// failed.

const ROOT = process.cwd();
const RUNS = Number(process.env.FUZZ_RUNS ?? 12_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const BRANDS = [GUNGNIR, PARTNER];

/**
 * One request on a connection of its own (Node's fetch keeps connections alive, and workerd closes one whose request
 * body it did not read, which the next request on it then meets). Redirects are never followed.
 */
async function sendOnce(url: string, init: RequestInit): Promise<Response> {
  const request = new Request(url, init);
  const body = Buffer.from(await request.arrayBuffer());
  const headers = Object.fromEntries(request.headers);
  if (request.method !== "GET") headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: request.method, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(incoming.headers))
          for (const line of Array.isArray(value) ? value : [value ?? ""]) answer.append(name, line);
        const status = incoming.statusCode ?? 0;
        const content = [204, 304].includes(status) ? null : Buffer.concat(chunks);
        resolve(new Response(content, { status, headers: answer }));
      });
    });
    outgoing.on("error", reject);
    outgoing.end(request.method === "GET" ? undefined : body);
  });
}

/**
 * CPU-seconds so far of this process's descendants (workerd, which miniflare starts, and its helpers), read from
 * /proc; undefined without it. With this process's own, what a run costs the machine.
 */
function workerdCpuSeconds(): number | undefined {
  const TICKS = 100;
  const stats = new Map<string, string[]>();
  try {
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // pid (comm) state ppid …: read after the last ")".
        stats.set(pid, stat.slice(stat.lastIndexOf(")") + 2).split(" "));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return undefined;
  }
  const ours = new Set([String(process.pid)]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, fields] of stats)
      if (!ours.has(pid) && ours.has(fields[1] ?? "")) {
        ours.add(pid);
        grew = true;
      }
  }
  ours.delete(String(process.pid));
  // utime, stime, and the reaped children's cutime, cstime (fields 14-17 of stat, 12-15 after the comm).
  const ticks = [...ours].reduce(
    (sum, pid) => sum + [11, 12, 13, 14].reduce((part, index) => part + Number(stats.get(pid)?.[index] ?? 0), 0),
    0,
  );
  return ticks / TICKS;
}

/** Runs a stage and prints its wall time, as .ci/run does its own. */
async function stage<T>(name: string, work: () => T | Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    console.log(`[fuzz] ${name}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}

async function main(): Promise<number> {
  if (!process.argv.includes("--no-build")) await stage("build", () => buildForE2e());
  const { vars } = JSON.parse(readFileSync(join(ROOT, "dist/signin_site/wrangler.json"), "utf8")) as {
    vars: Record<string, string>;
  };
  const keys = vars.SESSION_KEYS ?? "";
  const cookieFor = async (state: ScreenState) =>
    (
      await Promise.all(
        Object.entries(state).map(([which, value]) => sealedCookie(keys, which as SealedCookieName, value as never)),
      )
    ).join("; ");
  const port = Number(process.env.FUZZ_PORT ?? 4321);
  // The build in workerd alone, as the browser tests serve it (test/e2e/workerdSite.ts): no Node proxy in front, as
  // the edge has none. `vite preview`'s proxy cost as much CPU as the worker, and when the worker answered a huge
  // upload early (413) it could fail to finish sending it and answer 500 itself.
  const server = await stage("start", () => startWorkerdSite(port));
  try {
    const site = server.url;
    console.log(`fuzzing the build on workerd ${site}`);
    // An answer that never came from the worker is sent again, and counted: a connection workerd closed or reset
    // (it closes one whose request body it did not read, as after an early 413, and a request on it races the
    // close), or a 5xx without X-Request-Id (not the worker's answer).
    let transportRetries = 0;
    const send: Send = async (path, init) => {
      for (let attempt = 1; ; attempt++) {
        try {
          const response = await sendOnce(`${site}${path}`, init);
          if (response.status < 500 || response.headers.has("x-request-id") || attempt === 3) return response;
          await response.body?.cancel();
        } catch (error) {
          if (attempt === 3) throw error;
        }
        transportRetries++;
      }
    };
    const targets = await stage("targets", async () =>
      (
        await Promise.all(
          BRANDS.map((brand) =>
            discoverTargets(send, {
              routes: routeTable,
              screens: screenCases(brand),
              cookieFor,
              serviceId: brand.serviceId,
            }),
          ),
        )
      ).flat(),
    );
    const forms = targets.filter((target) => target.kind === "form").length;
    console.log(`fuzzing ${forms} forms and ${targets.length - forms} query routes, ${RUNS} cases, seed ${SEED}`);
    const result = await stage("cases", () =>
      fc.check(siteProperty(targets, send, site), { numRuns: RUNS, seed: SEED }),
    );
    if (result.failed) {
      console.log((fc.defaultReportMessage(result) ?? "").slice(0, 4000));
      console.log(`failure: ${String(result.errorInstance).slice(0, 1000)}`);
      console.log(`replay: FUZZ_SEED=${SEED} npm run fuzz`);
    }
    console.log(`transport errors sent again: ${transportRetries}`);
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    const workerdCpu = workerdCpuSeconds();
    console.log(
      `CPU: ${((userCPUTime + systemCPUTime) / 1e6).toFixed(1)} s this process (the fuzzer, and miniflare's side of workerd), ${workerdCpu?.toFixed(1) ?? "?"} s workerd`,
    );
    console.log(`${result.numRuns} cases, ${result.failed ? 1 : 0} failures`);
    return result.failed ? 1 : 0;
  } finally {
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
