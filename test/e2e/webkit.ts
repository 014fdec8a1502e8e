import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

// WebKitGTK for the browser tests (issue 22; ../shared/research/browser-engines.md): Debian's MiniBrowser driven by
// WebKitWebDriver (W3C WebDriver classic, spoken by the small fetch client below) under Xvfb. WebKit drops Secure
// cookies on http://localhost, so the site is served over HTTPS (startPreview's `https`).

const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const PACKAGES = ["webkit2gtk-driver", "xvfb"];

/** Installs WebKitGTK's driver and Xvfb with apt-get when missing (root on Debian), else fails naming the fix. */
export function ensureWebKit(): void {
  if (existsSync("/usr/bin/WebKitWebDriver") && existsSync("/usr/bin/Xvfb") && existsSync(MINIBROWSER)) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !existsSync("/etc/debian_version"))
    throw new Error(`WebKitGTK is missing. Install it with: sudo apt-get install -y ${PACKAGES.join(" ")}`);
  console.log(`[e2e] installing Debian's ${PACKAGES.join(", ")} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...PACKAGES], { stdio: "inherit", env });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Xvfb on a display it picks itself (-displayfd), so that two runs never race for one. */
function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp"], {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    let number = "";
    xvfb.stdio[3]?.on("data", (chunk: Buffer) => {
      number += chunk.toString();
      if (number.includes("\n")) resolve({ display: `:${number.trim()}`, process: xvfb });
    });
    xvfb.on("error", reject);
    xvfb.on("exit", (code) => reject(new Error(`Xvfb exited (${code})`)));
  });
}

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { value: { error?: string; message?: string } & Record<string, unknown> };
  if (!response.ok)
    throw new Error(`WebDriver ${method} ${new URL(url).pathname}: ${json.value.error} ${json.value.message}`);
  return json.value;
}

/** One WebKit window (a WebDriver session: its own cookie jar), JavaScript on or off. */
export interface WebKitPage {
  go(url: string): Promise<void>;
  url(): Promise<string>;
  type(css: string, text: string): Promise<void>;
  click(css: string): Promise<void>;
  text(css: string): Promise<string>;
  exec<T>(script: string): Promise<T>;
  cookies(): Promise<{ name: string; value: string; secure: boolean; httpOnly: boolean }[]>;
  quit(): Promise<void>;
}

/** Xvfb and WebKitWebDriver for a test file; `page()` opens a session. */
export async function startWebKit() {
  ensureWebKit();
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn("WebKitWebDriver", [`--port=${port}`], {
    stdio: "ignore",
    env: { ...process.env, DISPLAY: xvfb.display },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      await call(`${base}/status`, "GET");
      break;
    } catch (error) {
      if (tries > 200) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  async function page({ javaScript = true } = {}): Promise<WebKitPage> {
    const args = ["--automation", ...(javaScript ? [] : ["--enable-javascript-markup=false"])];
    const created = (await call(`${base}/session`, "POST", {
      capabilities: {
        alwaysMatch: { acceptInsecureCerts: true, "webkitgtk:browserOptions": { binary: MINIBROWSER, args } },
      },
    })) as { sessionId: string };
    const session = `${base}/session/${created.sessionId}`;
    const element = async (css: string) =>
      ((await call(`${session}/element`, "POST", { using: "css selector", value: css })) as Record<string, string>)[
        ELEMENT
      ];
    return {
      go: async (url) => void (await call(`${session}/url`, "POST", { url })),
      url: async () => (await call(`${session}/url`, "GET")) as unknown as string,
      type: async (css, text) => void (await call(`${session}/element/${await element(css)}/value`, "POST", { text })),
      click: async (css) => void (await call(`${session}/element/${await element(css)}/click`, "POST", {})),
      text: async (css) => (await call(`${session}/element/${await element(css)}/text`, "GET")) as unknown as string,
      exec: async (script) => (await call(`${session}/execute/sync`, "POST", { script, args: [] })) as never,
      cookies: async () => (await call(`${session}/cookie`, "GET")) as never,
      quit: async () => void (await call(session, "DELETE")),
    };
  }
  return {
    page,
    stop: () => {
      driver.kill("SIGTERM");
      xvfb.process.kill("SIGTERM");
    },
  };
}
