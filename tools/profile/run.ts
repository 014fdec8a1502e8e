import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCRIPT_MARKER_COOKIE } from "../../islands/scriptMarker";
import { buildForE2e } from "../../test/e2e/server";
import { appStart } from "../../test/support/appStart";
import type { Fault } from "../../test/support/emulatorClient";
import { sealedCookieHeader } from "../../test/support/forms";
import { type ScreenState, screenCases } from "../../test/support/screens";
import { GUNGNIR } from "../../test/support/vocabulary";
import { type CpuProfile, type ProfileSummary, STAGES, summarise } from "./stages";
import { load, startWorkerd } from "./workerd";

// `npm run profile` (docs/benchmarks.md): where a request's time goes in the built worker. Two builds of the same
// source: dist/ (minified, what ships) is timed; .profile-build/ (the same with function names kept) is profiled
// with V8's sampling profiler and summarised by stage (tools/profile/stages.ts). Four parts, each optional:
//
//   node-timing      SSR time in Node, in process, as the bench measures it (median, p99) and CPU per request
//   node-profile     the same requests under the profiler, by stage, and the WebCrypto, rate-limit and log calls
//   throughput       requests per second of each scenario on the local workerd against a static asset
//   workerd-profile  the worker's own isolate on workerd under load, by stage
//
//   pages            (only when asked for) every screen of the bench's list rendered by each of --builds, compared
//   screens          (only when asked for) the SSR median and p99 of every screen of that list, per build
//
//   --parts a,b           these parts alone (default: the four above `pages`)
//   --no-build            reuse both builds
//   --rounds N            rounds of the timing parts (default 7 in Node, 5 on workerd), scenarios interleaved
//   --samples N           requests per scenario and round in Node (default 400)
//   --seconds N           seconds per scenario and round on workerd (default 3)
//   --profile-requests N  requests per scenario under the profiler in Node (default 3000)
//   --only a,b            these scenarios alone
//   --sentry              SENTRY_DSN set (its transport answered here): Sentry's share of a request
//   --bench-env           the bench's variables as built (APP_ENV=dev, PASSKEYS=on, the public development key)
//   --builds a,b          the timing parts compare these builds (each a `vite build` output directory), paired by round
//   --profile-builds a,b  the profiling parts load and compare these unminified builds (default .profile-build)
//   --repeats N           profiles per scenario and build, the builds' turns alternating (default 1), added up
//   --functions           the profiles' top functions too
//   --summarise f,g       only print the stage tables of saved profiles (.profile-run/profiles/*.cpuprofile)
//   --smoke               every part at a size of seconds (.ci/run): 1 round, 30 samples, 0.5 s, 100 profiled
//                         requests, each unless given; so that a profile that breaks fails CI
//
// It exits non-zero when a request is answered with another status than its scenario's.

const ROOT = process.cwd();
/** Frames of this file are the harness (its URL as profiles name it). */
const HARNESS_FILE = import.meta.url;
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const SMOKE = flag("--smoke");
/** A numeric option, else its smoke run's default under `--smoke`, else its full one. */
const option = (name: string, fallback: number, smoke = fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : SMOKE ? smoke : fallback;
};
const list = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1]!.split(",") : undefined);
const PARTS = list("--parts") ?? ["node-timing", "node-profile", "throughput", "workerd-profile"];
const ONLY = list("--only");
const SAMPLES = option("--samples", 400, 30);
const SECONDS = option("--seconds", 3, 0.5);
const PROFILE_REQUESTS = option("--profile-requests", 3000, 100);
/** Answers on workerd with another status than their scenario's (in Node such an answer throws). */
let wrongAnswers = 0;
const STATIC_ASSET = `/brands/${GUNGNIR.serviceId}/logo.svg`;
const INSPECTOR_PORT = Number(process.env.PROFILE_INSPECTOR_PORT ?? 9471);
/** The unminified builds the profiling parts load and compare (`--profile-builds a,b`). */
const PROFILE_BUILDS = list("--profile-builds") ?? [".profile-build"];
/** V8's sampling interval. */
const SAMPLING_US = option("--sampling-us", 100);
/** Profiles per scenario and build, the builds' turns alternating (`--repeats N`), added up. */
const REPEATS = option("--repeats", 1);

/** The harness's own output: console is the worker's log sink here. */
const print = (...parts: string[]) => process.stdout.write(`${parts.join(" ")}\n`);

interface WorkerModule {
  default: { fetch(request: Request, env: Record<string, unknown>, ctx: unknown): Promise<Response> };
}

interface Scenario {
  name: string;
  path: string;
  cookie: string;
  status: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

interface BuiltConfig {
  vars: Record<string, string>;
  ratelimits?: Array<{ name: string }>;
}

const builtConfig = (outDir: string) =>
  JSON.parse(readFileSync(join(ROOT, outDir, "signin_site/wrangler.json"), "utf8")) as BuiltConfig;

/**
 * The variables the worker runs with: production's where they differ from the dev build's (wrangler.toml [vars]),
 * and a session key that is not the public development one, so that the configuration check runs as in production.
 */
function variables(outDir: string): Record<string, string> {
  const production: Record<string, string> = {
    APP_ENV: "prod",
    PASSKEYS: "off",
    SESSION_KEYS: `k1:${Buffer.from("profile-session-key-32-bytes-ok!").toString("base64url")}`,
  };
  const vars: Record<string, string> = { ...builtConfig(outDir).vars, ...(flag("--bench-env") ? {} : production) };
  if (flag("--sentry")) vars.SENTRY_DSN = "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1";
  return vars;
}

/** How the identity API answers the screen being rendered (the `pages` part: a screen case's `upstream`). */
let upstream: Fault[] = [];

/**
 * The identity API: a screen case's calls as the case says (the `pages` part); the authorization endpoint answers the site's own authorization with its login URL on the
 * site's origin (the app's start then renders the sign-in screen in place); every other call is a 503.
 */
async function identity(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const fault = upstream.find(
    (call) => call.pathPattern === url.pathname && (call.method ?? "POST") === request.method,
  );
  if (fault) {
    if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    return Response.json(fault.body ?? {}, { status: fault.status ?? 200 });
  }
  if (url.pathname !== "/oauth2/auth") return new Response("{}", { status: 503 });
  const site = `${request.headers.get("X-Forwarded-Proto")}://${request.headers.get("X-Forwarded-Host")}`;
  const login = new URLSearchParams({
    login_challenge: `challenge-${crypto.randomUUID()}`,
    client_id: url.searchParams.get("client_id") ?? "",
    view: "signIn",
  });
  return new Response(null, { status: 302, headers: { Location: `${site}/?${login}` } });
}

/** The bindings the worker gets in Node: variables, assets, the identity API, rate limiters that let all through. */
function nodeEnvironment(outDir: string): Record<string, unknown> & { SESSION_KEYS?: string } {
  if (flag("--sentry")) {
    // The SDK's transport sends envelopes with fetch: answered here, as the ingest would.
    globalThis.fetch = async () => new Response("{}", { status: 200 });
  }
  return {
    ...variables(outDir),
    ASSETS: { fetch: async () => new Response("asset", { status: 200 }) },
    // As the bench's (tools/bench/run.ts): the worker's Request itself, not a copy.
    IDENTITY: {
      fetch: (input: RequestInfo, init?: RequestInit) =>
        identity(input instanceof Request && !init ? input : new Request(input, init)),
    },
    ...Object.fromEntries(
      (builtConfig(outDir).ratelimits ?? []).map(({ name }) => [
        name,
        {
          async limit() {
            return { success: true };
          },
        },
      ]),
    ),
  };
}

async function scenarios(sessionKeys: string): Promise<Scenario[]> {
  const sealed = (state: ScreenState) => sealedCookieHeader(sessionKeys, state);
  const cases = screenCases(GUNGNIR);
  const screen = async (name: string) => {
    const found = cases.find((candidate) => candidate.name === name)!;
    // The brand a browser keeps from earlier in its journey, as the bench sends it.
    const cookie = [await sealed(found.state), `__Host-service=${GUNGNIR.serviceId}`].filter(Boolean).join("; ");
    return { name, path: found.path, cookie, status: found.status };
  };
  const start = await appStart(GUNGNIR, "signIn");
  const all: Scenario[] = [
    await screen("reset-password"),
    await screen("sign-in"),
    { name: "app-start-sign-in", path: start.path, cookie: "", status: 200 },
    { name: "health", path: "/health", cookie: "", status: 200 },
  ];
  return all.filter((scenario) => !ONLY || ONLY.includes(scenario.name));
}

/** The log lines the worker writes go here, serialised as in production, then dropped (Node's stdout is not measured). */
function installLogSink() {
  const logSink = (..._line: unknown[]) => {};
  for (const level of ["log", "info", "warn", "error"] as const) console[level] = logSink;
}

const COUNTED = [
  "decrypt",
  "encrypt",
  "importKey",
  "digest",
  "getRandomValues",
  "rateLimit",
  "log",
  "stringify",
  "newURL",
  "headersSet",
  "regexExec",
  "encode",
] as const;
type Counts = Record<(typeof COUNTED)[number], number>;

/**
 * Per request, over `n` requests: WebCrypto calls (each sealed cookie opened is one decrypt), random bytes drawn,
 * rate-limit binding calls, log lines, JSON.stringify calls, URLs parsed, headers set on a Headers object, regular
 * expressions run with exec (RegExp.prototype.test and String methods call it too: V8's own fast paths do not), and
 * TextEncoder.encode calls (React encodes each chunk of HTML). The harness's own request and response count too
 * (one URL, no header set).
 */
async function countPerRequest(one: () => Promise<unknown>, env: Record<string, unknown>, n: number): Promise<Counts> {
  const counts = Object.fromEntries(COUNTED.map((name) => [name, 0])) as Counts;
  const restore: Array<() => void> = [];
  const wrap = <O extends object>(owner: O, name: keyof O & string, counter: keyof Counts) => {
    const original = owner[name] as (...a: unknown[]) => unknown;
    (owner as Record<string, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
      counts[counter]++;
      return original.apply(this, a);
    };
    restore.push(() => {
      (owner as Record<string, unknown>)[name] = original;
    });
  };
  for (const name of ["decrypt", "encrypt", "importKey", "digest"] as const)
    wrap(Object.getPrototypeOf(crypto.subtle), name, name);
  wrap(Object.getPrototypeOf(crypto), "getRandomValues", "getRandomValues");
  wrap(TextEncoder.prototype, "encode", "encode");
  wrap(JSON, "stringify", "stringify");
  wrap(Headers.prototype, "set", "headersSet");
  wrap(RegExp.prototype, "exec", "regexExec");
  const OriginalURL = URL;
  globalThis.URL = new Proxy(OriginalURL, {
    construct(target, a, newTarget) {
      counts.newURL++;
      return Reflect.construct(target, a, newTarget);
    },
  });
  restore.push(() => {
    globalThis.URL = OriginalURL;
  });
  for (const [name, binding] of Object.entries(env))
    if (name.startsWith("RL_")) wrap(binding as object, "limit" as never, "rateLimit");
  for (const level of ["log", "info", "warn", "error"] as const) wrap(console, level, "log");
  try {
    for (let i = 0; i < n; i++) await one();
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return Object.fromEntries(COUNTED.map((name) => [name, counts[name] / n])) as Counts;
}

async function inNode(outDir: string) {
  const built = (await import(join(ROOT, outDir, "signin_site/index.js"))) as WorkerModule;
  const env = nodeEnvironment(outDir);
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
  const cases = await scenarios(env.SESSION_KEYS ?? "");
  /** One request of the scenario, its page read to the end (and answered with `keep`). */
  function requester(scenario: Scenario, keep = false): () => Promise<string> {
    return async function oneRequest() {
      const request = new Request(`https://bench.test${scenario.path}`, {
        headers: scenario.cookie ? { Cookie: scenario.cookie } : {},
      });
      const response = await built.default.fetch(request, env, ctx);
      const text = await response.text();
      if (response.status !== scenario.status)
        throw new Error(`${scenario.name}: status ${response.status}, expected ${scenario.status}`);
      return keep ? text : "";
    };
  }
  return { env, cases, requester };
}

/**
 * `pages`: every screen of the bench's list (test/support/screens.ts) rendered by each of `--builds`, the pages
 * compared (the nonce aside): a change to how pages are rendered must leave every byte as it was. The TOTP setup
 * screen is also rendered for a browser that runs script, its secret arriving 30 ms late, so that React streams
 * the late part (Suspense) after the shell.
 */
async function samePages() {
  const builds = await Promise.all(BUILDS.map(async (outDir) => ({ outDir, ...(await inNode(outDir)) })));
  const sessionKeys = builds[0]!.env.SESSION_KEYS ?? "";
  const cases = screenCases(GUNGNIR);
  const totp = cases.find((screen) => screen.name === "mfa-setup-totp");
  const streamed = totp && {
    ...totp,
    name: "mfa-setup-totp (script: streamed)",
    upstream: (totp.upstream ?? []).map((fault) => ({ ...fault, delayMs: 30 })),
  };
  let differing = 0;
  for (const screen of streamed ? [...cases, streamed] : cases) {
    upstream = screen.upstream ?? [];
    const sealed = await sealedCookieHeader(sessionKeys, screen.state);
    const marker = screen === streamed ? `__Host-${SCRIPT_MARKER_COOKIE}=1` : "";
    const cookie = [sealed, `__Host-service=${GUNGNIR.serviceId}`, marker].filter(Boolean).join("; ");
    const scenario = { name: screen.name, path: screen.path, cookie, status: screen.status };
    const pages: string[] = [];
    for (const build of builds) pages.push(comparable(await build.requester(scenario, true)()));
    const same = pages.every((page) => page === pages[0]);
    if (!same) differing++;
    print(`${same ? "same" : "DIFFERENT"}  ${screen.name} (${pages[0]!.length} characters)`);
  }
  upstream = [];
  print(
    differing
      ? `\n${differing} screen(s) differ between ${BUILDS.join(" and ")}`
      : `\nevery screen the same in ${BUILDS.join(" and ")}`,
  );
}

/**
 * `screens`: the SSR time of every screen of the bench's list (as `npm run bench` measures it: a request in, the page
 * read to its end) for each of `--builds`, rounds of `--samples` requests, builds and screens interleaved.
 */
async function screenTimes() {
  const rounds = option("--rounds", 7, 1);
  const builds = await Promise.all(BUILDS.map(async (outDir) => ({ outDir, ...(await inNode(outDir)) })));
  const sessionKeys = builds[0]!.env.SESSION_KEYS ?? "";
  const screens = [];
  for (const screen of screenCases(GUNGNIR)) {
    const sealed = await sealedCookieHeader(sessionKeys, screen.state);
    const cookie = [sealed, `__Host-service=${GUNGNIR.serviceId}`].filter(Boolean).join("; ");
    screens.push({ screen, scenario: { name: screen.name, path: screen.path, cookie, status: screen.status } });
  }
  const times = new Map(
    screens.map(({ screen }) => [screen.name, builds.map(() => ({ medians: [] as number[], p99s: [] as number[] }))]),
  );
  for (let round = 0; round < rounds; round++)
    for (const { screen, scenario } of screens) {
      upstream = screen.upstream ?? [];
      for (const [b, build] of round % 2 ? [...builds.entries()].reverse() : [...builds.entries()]) {
        const one = build.requester(scenario);
        for (let i = 0; i < 20; i++) await one();
        const samples: number[] = [];
        for (let i = 0; i < SAMPLES; i++) {
          const started = performance.now();
          await one();
          samples.push(performance.now() - started);
        }
        samples.sort((x, y) => x - y);
        const entry = times.get(screen.name)![b]!;
        entry.medians.push(percentile(samples, 50));
        entry.p99s.push(percentile(samples, 99));
      }
    }
  upstream = [];
  print(
    `\n## SSR of every screen in Node (${BUILDS.join(", ")}): ${rounds} rounds × ${SAMPLES} requests, ${process.version}; ms, median over the rounds of each round's median and p99\n`,
  );
  print(
    `| screen |${BUILDS.map((build) => ` median (${build}) | p99 |`).join("")}\n| --- |${BUILDS.map(() => " ---: | ---: |").join("")}`,
  );
  for (const [name, perBuild] of times)
    print(
      `| ${name} |${perBuild.map(({ medians, p99s }) => ` ${median(medians).toFixed(3)} | ${median(p99s).toFixed(3)} |`).join("")}`,
    );
}

/** The builds the timing parts compare (`--builds a,b`), dist/ alone by default. */
const BUILDS = list("--builds") ?? ["dist"];

/** A page as it would be in any response: the nonce, the CSRF-free random parts and request ids left out. */
const comparable = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""');

async function nodeTiming() {
  const rounds = option("--rounds", 7, 1);
  const builds = await Promise.all(BUILDS.map(async (outDir) => ({ outDir, ...(await inNode(outDir)) })));
  const cases = builds[0]!.cases;
  // Every build answers every scenario with the same page.
  for (const scenario of cases) {
    const pages = await Promise.all(builds.map(async (build) => comparable(await build.requester(scenario, true)())));
    if (pages.some((page) => page !== pages[0]))
      print(`NOTE: ${scenario.name} differs between ${BUILDS.join(" and ")}`);
  }
  const key = (outDir: string, name: string) => `${name}${BUILDS.length > 1 ? ` [${outDir}]` : ""}`;
  const times = new Map<string, { medians: number[]; p99s: number[]; cpu: number[] }>();
  for (const scenario of cases)
    for (const build of builds) {
      times.set(key(build.outDir, scenario.name), { medians: [], p99s: [], cpu: [] });
      for (let i = 0; i < 300; i++) await build.requester(scenario)();
    }
  for (let round = 0; round < rounds; round++) {
    for (const scenario of cases) {
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        const one = build.requester(scenario);
        const samples: number[] = [];
        const cpuBefore = process.cpuUsage();
        for (let i = 0; i < SAMPLES; i++) {
          const started = performance.now();
          await one();
          samples.push(performance.now() - started);
        }
        const cpu = process.cpuUsage(cpuBefore);
        samples.sort((a, b) => a - b);
        const entry = times.get(key(build.outDir, scenario.name))!;
        entry.medians.push(percentile(samples, 50));
        entry.p99s.push(percentile(samples, 99));
        entry.cpu.push((cpu.user + cpu.system) / SAMPLES);
      }
    }
  }
  print(
    `\n## SSR in Node, in process (${BUILDS.join(", ")}): ${rounds} rounds × ${SAMPLES} requests per scenario, ${process.version}`,
  );
  print("median over the rounds (min–max of the rounds); CPU: process CPU time per request, µs\n");
  print("| scenario | median ms | p99 ms | CPU µs |\n| --- | ---: | ---: | ---: |");
  for (const [name, { medians, p99s, cpu }] of times) {
    print(
      `| ${name} | ${median(medians).toFixed(3)} (${range(medians, 3)}) | ${median(p99s).toFixed(3)} (${range(p99s, 3)}) | ${median(cpu).toFixed(0)} (${range(cpu, 0)}) |`,
    );
  }
  if (builds.length < 2) return;
  // Paired by round (the same moment of a shared machine): each later build's figures over the first build's.
  print(`\npaired by round, over ${BUILDS[0]}: median of the rounds' ratios (min–max)\n`);
  print("| scenario | build | median ratio | CPU ratio |\n| --- | --- | ---: | ---: |");
  for (const scenario of cases) {
    const base = times.get(key(BUILDS[0]!, scenario.name))!;
    for (const outDir of BUILDS.slice(1)) {
      const other = times.get(key(outDir, scenario.name))!;
      const ratios = (a: number[], b: number[]) => a.map((value, i) => value / b[i]!);
      const medianRatios = ratios(other.medians, base.medians);
      const cpuRatios = ratios(other.cpu, base.cpu);
      print(
        `| ${scenario.name} | ${outDir} | ${median(medianRatios).toFixed(2)} (${range(medianRatios, 2)}) | ${median(cpuRatios).toFixed(2)} (${range(cpuRatios, 2)}) |`,
      );
    }
  }
}

/** What the profiles of one scenario and build add up to. */
interface Profiled {
  build: string;
  summary: ProfileSummary;
  requests: number;
  /** CPU time per request just before, unprofiled (Node: this process; workerd: the workerd process). */
  cpuUs: number;
}

function addUp(into: Profiled | undefined, next: Profiled): Profiled {
  if (!into) return next;
  const sum = (a: Map<string, number>, b: Map<string, number>) => {
    for (const [key, us] of b) a.set(key, (a.get(key) ?? 0) + us);
  };
  sum(into.summary.stages, next.summary.stages);
  sum(into.summary.selfByFunction, next.summary.selfByFunction);
  sum(into.summary.totalByFunction, next.summary.totalByFunction);
  const requests = into.requests + next.requests;
  return {
    build: into.build,
    summary: { ...into.summary, totalUs: into.summary.totalUs + next.summary.totalUs },
    requests,
    cpuUs: (into.cpuUs * into.requests + next.cpuUs * next.requests) / requests,
  };
}

/**
 * One scenario's stages, per build: the stage's share of the sampled time and, with `cpuColumn`, that share of the
 * CPU time a request takes unprofiled. V8 samples on wall time, so a busy machine stretches every sample alike (the
 * shares hold, the sampled microseconds do not), and the profiler's own work makes a profiled request several times
 * slower: hence the CPU time measured without it, just before.
 */
function stageTable(title: string, builds: Profiled[], cpuColumn: boolean) {
  const lines = [`\n### ${title}\n`];
  for (const { build, requests, summary, cpuUs } of builds)
    lines.push(
      `- ${build}: ${requests} requests profiled (${(summary.totalUs / requests).toFixed(0)} µs sampled each); ${cpuUs.toFixed(0)} µs CPU per request unprofiled`,
    );
  const columns = cpuColumn ? " share | CPU µs |" : " share |";
  const rule = cpuColumn ? " ---: | ---: |" : " ---: |";
  lines.push(`\n| stage |${builds.map(() => columns).join("")}\n| --- |${builds.map(() => rule).join("")}`);
  for (const stage of STAGES) {
    const shares = builds.map(({ summary }) => (summary.stages.get(stage) ?? 0) / summary.totalUs);
    if (shares.every((share) => share === 0)) continue;
    const cells = shares.map(
      (share, i) => ` ${(100 * share).toFixed(1)} % |${cpuColumn ? ` ${(share * builds[i]!.cpuUs).toFixed(1)} |` : ""}`,
    );
    lines.push(`| ${stage} |${cells.join("")}`);
  }
  if (flag("--functions"))
    for (const { build, requests, summary } of builds) {
      const top = (map: Map<string, number>, count: number) =>
        [...map]
          .sort((a, b) => b[1] - a[1])
          .slice(0, count)
          .map(([label, us]) => `    ${((100 * us) / summary.totalUs).toFixed(1).padStart(5)} %  ${label}`);
      lines.push(`\n  ${build}, ${requests} requests: self time, top functions (share of the sampled time):`);
      lines.push(
        ...top(summary.selfByFunction, 20),
        "\n  total time (on the stack):",
        ...top(summary.totalByFunction, 30),
      );
    }
  return lines.join("\n");
}

const profileFile = (where: string, name: string, build: string, repeat: number) => {
  mkdirSync(join(ROOT, ".profile-run/profiles"), { recursive: true });
  const tag = `${build.replace(/\W/g, "")}${flag("--sentry") ? "-sentry" : ""}-${repeat}`;
  return join(ROOT, ".profile-run/profiles", `${where}-${name}-${tag}.cpuprofile`);
};

interface ProfileNote {
  requests: number;
  scenario?: string;
  /** The harness's file URL in a Node profile (its frames are the harness stage). */
  harness?: string;
  build: string;
  where: "node" | "workerd";
  cpuUs: number;
}

/** The profile (for Chrome DevTools or `--summarise`) and, beside it, what it covers. */
function saveProfile(file: string, profile: unknown, note: ProfileNote) {
  writeFileSync(file, JSON.stringify(profile));
  writeFileSync(`${file}.json`, JSON.stringify(note));
}

/** Bundle files as a profile of `where` names them (Node: file URLs; workerd: paths inside the worker). */
function bundleResolver(where: ProfileNote["where"], outDir: string) {
  const worker = join(ROOT, outDir, "signin_site");
  return (url: string) => {
    if (where === "node") {
      if (!url.startsWith("file://")) return undefined;
      const file = fileURLToPath(url);
      return file.startsWith(worker) ? file : undefined;
    }
    const relative = url.replace(/^file:\/\//, "").replace(/^.*signin_site\//, "");
    return /^(index|assets\/[\w-]+)\.js$/.test(relative) ? join(worker, relative) : undefined;
  };
}

/** `--summarise a.cpuprofile,b.cpuprofile`: the stage tables of saved profiles again (after stages.ts changed). */
/**
 * `--summarise a.cpuprofile,b.cpuprofile`: the stage tables of saved profiles again (after stages.ts changed), the
 * profiles of one scenario and place added up per build, a column per build.
 */
function summariseSaved(files: string[]) {
  const tables = new Map<string, Map<string, Profiled>>();
  for (const file of files) {
    const note = JSON.parse(readFileSync(`${file}.json`, "utf8")) as ProfileNote;
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    const harness = note.where === "node" ? (note.harness ?? HARNESS_FILE) : undefined;
    const summary = summarise(profile, bundleResolver(note.where, note.build), harness);
    const scenario = note.scenario ?? file;
    const table = tables.get(`${note.where}: ${scenario}`) ?? new Map<string, Profiled>();
    tables.set(`${note.where}: ${scenario}`, table);
    const next = { build: note.build, summary, requests: note.requests, cpuUs: note.cpuUs };
    table.set(note.build, addUp(table.get(note.build), next));
  }
  for (const [title, table] of tables) print(stageTable(title, [...table.values()], title.startsWith("node")));
}

async function nodeProfile() {
  const builds = [];
  for (const outDir of PROFILE_BUILDS) builds.push({ outDir, ...(await inNode(outDir)) });
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  const countLines: string[] = [];
  print(
    `\n## Profile in Node, in process (${PROFILE_BUILDS.join(", ")}; unminified): ${REPEATS} × ${PROFILE_REQUESTS} requests per scenario and build, sampled every ${SAMPLING_US} µs`,
  );
  for (const scenario of builds[0]!.cases) {
    const profiled = new Map<string, Profiled>();
    for (const { outDir, env, requester } of builds) {
      const one = requester(scenario);
      for (let i = 0; i < 500; i++) await one();
      const counts = await countPerRequest(one, env, 50);
      countLines.push(`| ${scenario.name} [${outDir}] | ${COUNTED.map((name) => counts[name]).join(" | ")} |`);
    }
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      for (const { outDir, requester } of repeat % 2 ? [...builds].reverse() : builds) {
        const one = requester(scenario);
        const cpuBefore = process.cpuUsage();
        for (let i = 0; i < PROFILE_REQUESTS; i++) await one();
        const cpu = process.cpuUsage(cpuBefore);
        const cpuUs = (cpu.user + cpu.system) / PROFILE_REQUESTS;
        await session.post("Profiler.start");
        for (let i = 0; i < PROFILE_REQUESTS; i++) await one();
        const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: CpuProfile };
        saveProfile(profileFile("node", scenario.name, outDir, repeat), profile, {
          requests: PROFILE_REQUESTS,
          scenario: scenario.name,
          harness: HARNESS_FILE,
          build: outDir,
          where: "node",
          cpuUs,
        });
        const summary = summarise(profile, bundleResolver("node", outDir), HARNESS_FILE);
        profiled.set(
          outDir,
          addUp(profiled.get(outDir), { build: outDir, summary, requests: PROFILE_REQUESTS, cpuUs }),
        );
      }
    }
    print(stageTable(`Node: ${scenario.name}`, [...profiled.values()], true));
  }
  print(`\nper request (Node): | scenario | ${COUNTED.join(" | ")} |`);
  print(`| --- |${COUNTED.map(() => " ---: |").join("")}`);
  for (const line of countLines) print(line);
}

async function onWorkerd(outDir: string, inspectorPort?: number) {
  const vars = variables(outDir);
  const site = await startWorkerd(outDir, vars, identity, inspectorPort);
  return { site, cases: await scenarios(vars.SESSION_KEYS ?? "") };
}

async function throughput() {
  const rounds = option("--rounds", 5, 1);
  const sites = [];
  for (const outDir of BUILDS) sites.push({ outDir, ...(await onWorkerd(outDir)) });
  try {
    const cases = sites[0]!.cases;
    const all = [{ name: "static asset", path: STATIC_ASSET, cookie: "", status: 200 }, ...cases];
    const key = (outDir: string, name: string) => `${name}${BUILDS.length > 1 ? ` [${outDir}]` : ""}`;
    const figures = new Map<string, { rps: number[]; ratio: number[]; cpu: number[]; cpuRatio: number[] }>();
    for (const { outDir, site } of sites)
      for (const scenario of all) {
        figures.set(key(outDir, scenario.name), { rps: [], ratio: [], cpu: [], cpuRatio: [] });
        wrongAnswers += (await load(`${site.url}${scenario.path}`, scenario.cookie, scenario.status, 1)).wrong;
      }
    let wrong = 0;
    for (let round = 0; round < rounds; round++) {
      for (const { outDir, site } of round % 2 ? [...sites].reverse() : sites) {
        let asset = { rps: 0, cpu: 0 };
        for (const scenario of all) {
          const cpuBefore = site.cpuSeconds();
          const result = await load(`${site.url}${scenario.path}`, scenario.cookie, scenario.status, SECONDS);
          const cpu = ((site.cpuSeconds() - cpuBefore) * 1e6) / result.requests;
          if (scenario.path === STATIC_ASSET) asset = { rps: result.rps, cpu };
          wrong += result.wrong;
          const entry = figures.get(key(outDir, scenario.name))!;
          entry.rps.push(result.rps);
          entry.ratio.push(result.rps / asset.rps);
          entry.cpu.push(cpu);
          entry.cpuRatio.push(asset.cpu / cpu);
        }
      }
    }
    print(
      `\n## Throughput on the local workerd (Miniflare; ${BUILDS.join(", ")}), 8 connections, ${rounds} rounds × ${SECONDS} s per scenario (load generator on the same cores)`,
    );
    print(
      "median over the rounds (min–max). ratio: the scenario's requests per second over the static asset's in the same round; workerd CPU: the workerd process's CPU time per request (every worker of it, the asset server, logging), µs; CPU ratio: the static asset's CPU per request over the scenario's\n",
    );
    print("| scenario | req/s | ratio to static | workerd CPU µs | CPU ratio |\n| --- | ---: | ---: | ---: | ---: |");
    for (const [name, { rps, ratio, cpu, cpuRatio }] of figures) {
      print(
        `| ${name} | ${median(rps).toFixed(0)} (${range(rps, 0)}) | ${median(ratio).toFixed(2)} (${range(ratio, 2)}) | ${median(cpu).toFixed(0)} (${range(cpu, 0)}) | ${median(cpuRatio).toFixed(2)} (${range(cpuRatio, 2)}) |`,
      );
    }
    if (wrong) print(`\n${wrong} answers with an unexpected status`);
    wrongAnswers += wrong;
  } finally {
    for (const { site } of sites) await site.stop();
  }
}

async function workerdProfile() {
  const sites = [];
  for (const [i, outDir] of PROFILE_BUILDS.entries())
    sites.push({ outDir, inspectorPort: INSPECTOR_PORT + i, ...(await onWorkerd(outDir, INSPECTOR_PORT + i)) });
  try {
    print(
      `\n## Profile on workerd (the site worker's isolate; ${PROFILE_BUILDS.join(", ")}): ${REPEATS} × ${SECONDS * 2} s of load per scenario and build, sampled every ${SAMPLING_US} µs; the CPU is the whole workerd process's (its entry and asset workers too), so no CPU column`,
    );
    for (const scenario of sites[0]!.cases) {
      const profiled = new Map<string, Profiled>();
      const logLines = new Map<string, number>();
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        for (const { outDir, site } of repeat % 2 ? [...sites].reverse() : sites) {
          const url = `${site.url}${scenario.path}`;
          wrongAnswers += (await load(url, scenario.cookie, scenario.status, 1)).wrong;
          const cpuBefore = site.cpuSeconds();
          const unprofiled = await load(url, scenario.cookie, scenario.status, SECONDS);
          wrongAnswers += unprofiled.wrong;
          const cpuUs = ((site.cpuSeconds() - cpuBefore) * 1e6) / unprofiled.requests;
          const linesBefore = site.logLines();
          const { result, profile } = await site.profile(SAMPLING_US, () =>
            load(url, scenario.cookie, scenario.status, SECONDS * 2),
          );
          wrongAnswers += result.wrong;
          logLines.set(outDir, (site.logLines() - linesBefore) / result.requests);
          saveProfile(profileFile("workerd", scenario.name, outDir, repeat), profile, {
            requests: result.requests,
            scenario: scenario.name,
            build: outDir,
            where: "workerd",
            cpuUs,
          });
          const summary = summarise(profile as CpuProfile, bundleResolver("workerd", outDir));
          const next = { build: outDir, summary, requests: result.requests, cpuUs };
          profiled.set(outDir, addUp(profiled.get(outDir), next));
        }
      }
      print(stageTable(`workerd: ${scenario.name}`, [...profiled.values()], false));
      print(
        `\n  log lines per request: ${[...logLines].map(([build, lines]) => `${lines.toFixed(2)} (${build})`).join(", ")}`,
      );
    }
  } finally {
    for (const { site } of sites) await site.stop();
  }
}

async function main() {
  const saved = list("--summarise");
  if (saved) return summariseSaved(saved);
  installLogSink();
  if (!flag("--no-build")) {
    buildForE2e();
    buildForE2e("tools/profile/vite.config.ts");
  }
  print(
    `variables: ${flag("--bench-env") ? "the bench's (the dev build's)" : "production's on the dev build"}${flag("--sentry") ? ", SENTRY_DSN set" : ""}`,
  );
  if (PARTS.includes("pages")) await samePages();
  if (PARTS.includes("screens")) await screenTimes();
  if (PARTS.includes("node-timing")) await nodeTiming();
  if (PARTS.includes("node-profile")) await nodeProfile();
  if (PARTS.includes("throughput")) await throughput();
  if (PARTS.includes("workerd-profile")) await workerdProfile();
  if (wrongAnswers) {
    print(`\n${wrongAnswers} answers on workerd with an unexpected status (must be 0)`);
    process.exitCode = 1;
  }
}

await main();
