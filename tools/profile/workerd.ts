import { existsSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { Miniflare, type WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

// The built worker on the local workerd (Miniflare, as `vite preview` runs it), for what the Node figures cannot
// show: requests per second against a static asset, and V8's profile of the worker's own isolate, where Request,
// Response, Headers, streams and WebCrypto are the runtime's native code, not Node's JavaScript.

const ROOT = process.cwd();

export interface WorkerdScenario {
  name: string;
  path: string;
  cookie: string;
  status: number;
}

export interface WorkerdSite {
  url: string;
  /** V8's sampling profiler on the site worker's isolate. */
  profile<T>(intervalUs: number, run: () => Promise<T>): Promise<{ result: T; profile: unknown }>;
  logLines(): number;
  /** CPU seconds the workerd process has used so far (all its threads: every worker, the asset server, logging). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

interface Inspector {
  post(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

async function connect(url: string): Promise<Inspector> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: object };
    if (message.id === undefined) return;
    const settle = pending.get(message.id);
    pending.delete(message.id);
    settle?.(message.result ?? { error: message.error });
  };
  return {
    post: (method, params = {}) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/**
 * Serves `outDir`'s worker and its assets on workerd with the given variables; the identity API is `identity`
 * (a function in this process), every rate-limit binding allows a billion requests a minute.
 */
export async function startWorkerd(
  outDir: string,
  vars: Record<string, string>,
  identity: (request: Request) => Promise<Response>,
  inspectorPort?: number,
): Promise<WorkerdSite> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, outDir, "signin_site/wrangler.json"));
  const { serviceBindings: _emulator, ...options } = workerOptions as WorkerOptions;
  const ratelimits = (options.ratelimits ?? {}) as Record<string, { simple: { limit: number } }>;
  for (const binding of Object.values(ratelimits)) binding.simple.limit = 1e9;
  const worker = join(ROOT, outDir, "signin_site");
  const chunks = existsSync(join(worker, "assets")) ? readdirSync(join(worker, "assets")) : [];
  let lines = 0;
  const mf = new Miniflare({
    // The inspector only when profiling: with one open, V8 keeps every console message for it.
    ...(inspectorPort ? { inspectorPort } : {}),
    // As `vite preview` has them (@cloudflare/vite-plugin): workerd's structured logs, one call per line; dropped here.
    handleStructuredLogs: () => {
      lines++;
    },
    workers: [
      {
        ...options,
        name: "signin-site",
        // A bundle that imports chunks (in `assets/`), with dynamic specifiers too, has every module listed, the entry
        // first; today's build is one module (vite.config.ts) and has no `assets/`.
        modules: ["index.js", ...chunks.map((file) => `assets/${file}`)]
          .filter((file) => file.endsWith(".js"))
          .map((file) => ({ type: "ESModule" as const, path: join(worker, file) })),
        modulesRoot: worker,
        bindings: { ...(options.bindings ?? {}), ...vars },
        serviceBindings: { IDENTITY: identity },
      } as WorkerOptions,
    ],
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  return {
    url,
    async profile(intervalUs, run) {
      const inspector = await connect(`ws://127.0.0.1:${inspectorPort}/core:user:signin-site`);
      await inspector.post("Profiler.enable");
      await inspector.post("Profiler.setSamplingInterval", { interval: intervalUs });
      await inspector.post("Profiler.start");
      const result = await run();
      const { profile } = await inspector.post("Profiler.stop");
      inspector.close();
      return { result, profile };
    },
    logLines: () => lines,
    cpuSeconds: () => workerdPids().reduce((sum, pid) => sum + cpuSecondsOf(pid), 0),
    stop: () => mf.dispose(),
  };
}

/** The workerd processes this process started (Miniflare runs one). */
function workerdPids(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return stat.includes("(workerd)") && Number(fields[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** utime + stime of a process, in seconds (Linux /proc, clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `connections` keep-alive connections requesting one URL for `seconds`; requests per second and the wrong answers. */
export async function load(
  url: string,
  cookie: string,
  status: number,
  seconds: number,
  connections = 8,
): Promise<{ requests: number; rps: number; wrong: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const until = Date.now() + seconds * 1000;
  let requests = 0;
  let wrong = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const request = http.get(url, { agent, headers: cookie ? { Cookie: cookie } : {} }, (response) => {
        response.resume();
        response.on("end", () => {
          if (response.statusCode !== status) wrong++;
          requests++;
          resolve();
        });
      });
      request.on("error", () => {
        wrong++;
        resolve();
      });
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  agent.destroy();
  return { requests, rps: requests / ((Date.now() - started) / 1000), wrong };
}
