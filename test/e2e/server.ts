import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

// npm scripts and vitest both run from the project root.
const ROOT = process.cwd();

/**
 * Builds the site with wrangler's dev environment (the emulator included) for the browser tests; `config` names
 * another Vite config (the profiling harness's unminified build).
 */
export function buildForE2e(config?: string): void {
  // NODE_ENV: vitest sets "test", which would ship React's development build to the browser.
  // Quiet when it works: the build's output is shown only when it fails.
  const result = spawnSync("npx", ["vite", "build", ...(config ? ["--config", config] : [])], {
    cwd: ROOT,
    encoding: "utf8",
    env: {
      ...process.env,
      NODE_ENV: "production",
      CLOUDFLARE_ENV: "dev",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    },
  });
  if (result.status !== 0)
    throw new Error(
      `vite build${config ? ` (${config})` : ""} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** Whether the server answers its error page (over HTTPS with the locally made certificate too). */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const send = url.startsWith("https:") ? httpsRequest : httpRequest;
    const request = send(`${url}/error`, { rejectUnauthorized: false, timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
    request.on("timeout", () => request.destroy());
    request.end();
  });
}

async function waitForServer(url: string, child: ChildProcess, log: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the preview server exited early (${child.exitCode}):\n${log()}`);
    if (await answers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the preview server did not answer within ${timeoutMs} ms:\n${log()}`);
}

/** Whether something already answers on the port: another run's server, which this run's would be mistaken for. */
async function portTaken(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Serves the built worker on the local workerd with `vite preview`, in its own process group; with `https`, on
 * https://localhost with the locally made certificate, as `npm run dev:https` (HTTP/2, worker/localHttps.vite-plugin.ts).
 */
export async function startPreview(
  port: number,
  { https = false, logFile }: { https?: boolean; logFile?: string } = {},
): Promise<RunningServer> {
  // Without this, a second run (another checkout's tests) would find the first run's server answering and test
  // that build instead of its own, while its own preview exits on the taken port.
  if (await portTaken(`http://127.0.0.1:${port}`))
    throw new Error(`port ${port} already has a server: stop it, or choose another port (E2E_PORT, BENCH_PORT, …)`);
  // Preview runs the built configs as they are (both workers); CLOUDFLARE_ENV=dev here would apply the dev
  // environment a second time and rename the emulator, which the site then cannot find.
  const { CLOUDFLARE_ENV: _unused, ...env } = process.env;
  const child = spawn("npx", ["vite", "preview", "--port", String(port), "--strictPort", "--host", "127.0.0.1"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      NODE_ENV: "production",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // Its own emulator state, in memory, and no inspector port (vite.config.ts).
      TEST_SERVER: "1",
      ...(https ? { HTTPS: "1" } : {}),
    },
  });
  let output = "";
  // With `logFile`, the worker's log lines (one JSON object each) are also written there for the tests to read.
  const log = logFile ? createWriteStream(logFile) : undefined;
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    log?.write(chunk);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const url = https ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  const stop = async () => {
    log?.end();
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  try {
    await waitForServer(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
