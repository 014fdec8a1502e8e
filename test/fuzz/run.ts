import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import fc from "fast-check";
import { routeTable } from "../../worker/routes";
import type { SealedCookieName } from "../../worker/session/cookies";
import { buildForE2e, startPreview } from "../e2e/server";
import { sealedCookie } from "../support/forms";
import { type ScreenState, screenCases } from "../support/screens";
import { GUNGNIR, PARTNER } from "../support/vocabulary";
import { workerdEntryBehind } from "../support/workerdEntry";
import { discoverTargets, type Send, siteProperty } from "./fuzzing";

// `npm run fuzz`: the fuzzing of test/fuzz/fuzzing.ts at length, against the built site and the emulator on the
// local workerd. FUZZ_RUNS cases (12,000 unless set), FUZZ_SEED to replay a run (.ci/run derives it from the commit),
// FUZZ_PORT for the preview's port. Each stage prints its wall time; the last line says how many cases ran and how
// many failed.

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
 * CPU-seconds so far of the preview's process group (vite preview, workerd and its helpers), found by the preview's
 * command line; undefined without /proc. With this process's own, what a run costs the machine.
 */
function previewCpuSeconds(port: number): number | undefined {
  const TICKS = 100;
  const stats: string[][] = [];
  let group: string | undefined;
  try {
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // pid (comm) state ppid pgrp …: read after the last ")".
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        stats.push(fields);
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        if (command.includes("preview") && command.includes(String(port))) group ??= fields[2];
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return undefined;
  }
  if (!group) return undefined;
  // utime, stime, and the reaped children's cutime, cstime (fields 14-17 of stat, 12-15 after the comm).
  const ticks = stats
    .filter((fields) => fields[2] === group)
    .reduce((sum, fields) => sum + [11, 12, 13, 14].reduce((part, index) => part + Number(fields[index] ?? 0), 0), 0);
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
  const server = await stage("start", () => startPreview(port));
  try {
    // `vite preview` is a Node proxy in front of workerd (test/support/workerdEntry.ts): the cases go to workerd's
    // own entry socket behind it, as the edge has no such hop. The proxy cost as much CPU as the worker, and when the
    // worker answered a huge upload early (413) it could fail to finish sending it and answer 500 itself.
    const entry = process.env.FUZZ_VIA_PREVIEW ? undefined : await workerdEntryBehind(server.url);
    const site = entry ?? server.url;
    console.log(`fuzzing ${entry ? "workerd's entry socket" : "through vite preview (no entry socket found)"} ${site}`);
    // An answer that never came from the worker is sent again, and counted: a connection workerd closed or reset
    // (it closes one whose request body it did not read, as after an early 413, and a request on it races the
    // close), or through the proxy a 5xx without X-Request-Id (the proxy failed to finish sending a huge upload).
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
    const previewCpu = previewCpuSeconds(port);
    console.log(
      `CPU: ${((userCPUTime + systemCPUTime) / 1e6).toFixed(1)} s this process, ${previewCpu?.toFixed(1) ?? "?"} s the preview and workerd`,
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
