import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { ensureDebianPackages } from "./debian";
import { CLEAR_STORAGE, type EnginePage, SET_VALUE_AS_TYPED, type Target, until, xpathOf } from "./enginePage";

// WebKit for the browser tests, driven by its W3C WebDriver (classic, spoken by the small HTTP client below), which
// sees neither the network nor the console: a WebKit tab has none of EnginePage's optional capabilities.
// - WebKitGTK 2.50 (the engine of current iPhones): Debian's MiniBrowser under WebKitWebDriver, in Xvfb;
// - WPE WebKit 2.38 (about Safari 16, no Popover API: the oldest engine the site supports, docs/browsers.md): cog
//   with its headless platform under WPEWebDriver, no X server.
// WebKit drops Secure cookies on http://localhost, so the site is served over HTTPS (startPreview's `https`).

/** W3C WebDriver's code points for the keys a journey presses. */
const KEYS = { Tab: "\uE004", Enter: "\uE007", Escape: "\uE00C", Space: "\uE00D", Shift: "\uE008" } as const;

const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

export const WEBKITS = {
  webkitgtk: {
    name: "WebKitGTK",
    driver: "/usr/bin/WebKitWebDriver",
    files: {
      "/usr/bin/WebKitWebDriver": "webkit2gtk-driver",
      [MINIBROWSER]: "webkit2gtk-driver",
      "/usr/bin/Xvfb": "xvfb",
    },
    options: (args: string[]) => ({ "webkitgtk:browserOptions": { binary: MINIBROWSER, args } }),
    display: true,
    // MiniBrowser's toolbar keeps its window at least 447 px wide, wider than a phone: its GTK widgets are shrunk to
    // nothing by a user stylesheet (below), so that the page gets the width asked for (414, or 320 for the line
    // breaks). GTK's stylesheet styles the browser's own widgets, never a page (WebKit draws a page's controls).
    gtkStylesheet: true,
    // Xvfb has no GPU: accelerated compositing would draw every frame through Mesa's software OpenGL. Without it
    // WebKitGTK paints straight to the window, as on a machine without GPU drivers: the same DOM, script, layout,
    // cookies and screenshots, and about a fifth less CPU for webkit.test.ts, as measured when it was chosen.
    env: { WEBKIT_DISABLE_COMPOSITING_MODE: "1" },
  },
  wpe: {
    name: "WPE WebKit",
    driver: "/usr/bin/WPEWebDriver",
    files: { "/usr/bin/WPEWebDriver": "wpewebkit-driver", "/usr/bin/cog": "cog" },
    options: (args: string[]) => ({
      "wpe:browserOptions": { binary: "/usr/bin/cog", args: ["--platform=headless", ...args] },
    }),
    display: false,
    gtkStylesheet: false,
    env: {},
  },
} as const;

/** The browser's GTK widgets at their smallest: no padding, margin, border or minimum size, tiny text and icons. */
const SMALLEST_WIDGETS =
  "* { min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0; font-size: 1px; -gtk-icon-transform: scale(0.1); }\n";

/** A GTK configuration folder (XDG_CONFIG_HOME) whose user stylesheet is SMALLEST_WIDGETS. */
function smallestWidgetsConfig(): string {
  const config = mkdtempSync(join(tmpdir(), "webkitgtk-config-"));
  mkdirSync(join(config, "gtk-3.0"));
  writeFileSync(join(config, "gtk-3.0", "gtk.css"), SMALLEST_WIDGETS);
  return config;
}
export type WebKitKind = keyof typeof WEBKITS;

/** Installs the WebKit's driver and browser (and Xvfb for WebKitGTK) with apt-get when missing. */
export function ensureWebKit(kind: WebKitKind): void {
  ensureDebianPackages(WEBKITS[kind].name, WEBKITS[kind].files);
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
/**
 * The site's document that costs least to load (a static file: no worker, no page). WebDriver sets and deletes
 * cookies for the current document's site, so the window goes there first.
 */
const SITE_FILE = "/blocked-tab.svg";

/**
 * The driver's connections, kept open from command to command: a journey sends it a few hundred, and Node's `fetch`
 * costs about three times the CPU of a plain request on a kept connection (docs/benchmarks.md).
 */
const driverAgent = new Agent({ keepAlive: true });

function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method,
        agent: driverAgent,
        // A command the browser never answers fails the step that sent it, not the whole file much later.
        signal: AbortSignal.timeout(30_000),
        headers: {
          "content-type": "application/json",
          ...(payload ? { "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("error", reject);
        response.on("end", () => {
          try {
            const json = JSON.parse(text) as { value: { error?: string; message?: string } & Record<string, unknown> };
            const ok = (response.statusCode ?? 500) < 300;
            if (ok) resolve(json.value);
            else
              reject(
                new Error(`WebDriver ${method} ${new URL(url).pathname}: ${json.value.error} ${json.value.message}`),
              );
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    // Which command the browser left unanswered: the step's error names it (its path holds no secret).
    const command = `WebDriver ${method} ${new URL(url).pathname.replace(/^\/session\/[^/]+/, "/session/…")}`;
    sent.on("error", (error) =>
      reject(error.name === "AbortError" ? new Error(`${command}: no answer in 30 s`, { cause: error }) : error),
    );
    sent.end(payload);
  });
}

/** The part of a PNG inside a CSS-pixel box ([x, y, width, height, device pixel ratio]). */
function cutOut(png: Buffer, [x = 0, y = 0, width = 0, height = 0, ratio = 1]: number[]): Buffer {
  const image = PNG.sync.read(png);
  const [left, top] = [Math.max(0, Math.round(x * ratio)), Math.max(0, Math.round(y * ratio))];
  const part = new PNG({
    width: Math.min(Math.round(width * ratio), image.width - left),
    height: Math.min(Math.round(height * ratio), image.height - top),
  });
  PNG.bitblt(image, part, left, top, part.width, part.height, 0, 0);
  return PNG.sync.write(part);
}

const locator = (target: Target) =>
  typeof target === "string" ? { using: "css selector", value: target } : { using: "xpath", value: xpathOf(target) };

/** The WebKit's driver (and Xvfb for WebKitGTK) for a test file; `page()` opens a window with its own cookie jar. */
export async function startWebKit(kind: WebKitKind) {
  ensureWebKit(kind);
  const engine = WEBKITS[kind];
  const xvfb = engine.display ? await startXvfb() : undefined;
  const port = await freePort();
  const driver = spawn(engine.driver, [`--port=${port}`], {
    stdio: "ignore",
    env: {
      ...process.env,
      ...engine.env,
      ...(xvfb ? { DISPLAY: xvfb.display } : {}),
      ...(engine.gtkStylesheet ? { XDG_CONFIG_HOME: smallestWidgetsConfig() } : {}),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await until(async () => Boolean(await call(`${base}/status`, "GET")), `${engine.name}'s driver answering`, 10_000);

  // One browser at a time (WPE's driver holds a single session), kept from journey to journey while the JavaScript
  // setting stays: a new MiniBrowser costs about 0.7 s, a clean-up (`close`) a tenth of that.
  let kept: { javaScript: boolean; session: string; handle: string } | undefined;
  let current = "";
  let site = "";
  const endKept = async () => {
    if (kept) await call(kept.session, "DELETE").catch(() => undefined);
    kept = undefined;
  };

  /** The browser's window with nothing of an earlier journey: no cookie and no storage of the site; JavaScript on or off. */
  async function page({ javaScript = true } = {}): Promise<EnginePage> {
    if (kept?.javaScript !== javaScript) {
      await endKept();
      const args = ["--automation", ...(javaScript ? [] : ["--enable-javascript-markup=false"])];
      const created = (await call(`${base}/session`, "POST", {
        capabilities: { alwaysMatch: { acceptInsecureCerts: true, ...engine.options(args) } },
      })) as { sessionId: string };
      const session = `${base}/session/${created.sessionId}`;
      kept = { javaScript, session, handle: (await call(`${session}/window`, "GET")) as string };
      // A phone's viewport, as the other engines' tests use (cog's headless view keeps its own size).
      // Xvfb runs no window manager, so X gives the keyboard to the window under its pointer, which stays at the
      // screen's centre (640, 450): the window is placed over it, or keys would go nowhere and no element would match
      // `:focus` (document.hasFocus() false). cog's headless view has no pointer and always has the focus.
      await call(`${session}/window/rect`, "POST", { x: 440, y: 0, width: 414, height: 896 }).catch(() => undefined);
    }
    current = kept.handle;
    return tab(kept.session, kept.handle, true);

    /** A tab of the session; the first one's close clears the site's cookies and storage for the next journey. */
    function tab(session: string, handle: string, owner: boolean): EnginePage {
      /** Every command goes to this tab's window, switching to it first when another tab was last used. */
      const send = async (method: string, path: string, body?: unknown) => {
        if (current !== handle) {
          await call(`${session}/window`, "POST", { handle });
          current = handle;
        }
        return call(`${session}${path}`, method, body);
      };
      const matches = async (target: Target) =>
        ((await send("POST", "/elements", locator(target))) as Record<string, string>[]).map((found) => found[ELEMENT]);
      const displayed = async (target: Target) => {
        const shown: string[] = [];
        for (const id of await matches(target))
          if (await send("GET", `/element/${id}/displayed`)) shown.push(id as string);
        return shown;
      };
      const first = async (target: Target) => {
        const [id] = await displayed(target);
        if (!id) throw new Error(`nothing visible matches ${JSON.stringify(target)} at ${await send("GET", "/url")}`);
        return id;
      };
      const exec = async <T>(body: string) => (await send("POST", "/execute/sync", { script: body, args: [] })) as T;
      return {
        engine: engine.name,
        javaScript,
        go: async (url) => {
          site = new URL(url).origin;
          await send("POST", "/url", { url });
        },
        url: async () => (await send("GET", "/url")) as string,
        fill: async (target, text) => {
          const id = await first(target);
          const field = { [ELEMENT]: id };
          // With JavaScript off no page script can see the keys: the field gets the value typing would leave, in one
          // call. With it on, the field gets all but the last character so (an Element Send Keys per character costs
          // WebKit some 20 ms and the driver as much again), and that one is typed: the islands hear a real key, then
          // an input event with the whole value.
          const last = javaScript ? ([...text].at(-1) ?? "") : "";
          const script = `const [element, value] = arguments; ${SET_VALUE_AS_TYPED} return true;`;
          await send("POST", "/execute/sync", { script, args: [field, text.slice(0, text.length - last.length)] });
          if (last) await send("POST", `/element/${id}/value`, { text: last });
        },
        click: async (target) => void (await send("POST", `/element/${await first(target)}/click`, {})),
        press: async (key) => {
          // W3C WebDriver's key codes (§17.4.2): the modifier is held around the key, then every key is let go.
          const [modifier, pressed] = key === "Shift+Tab" ? [KEYS.Shift, KEYS.Tab] : [undefined, KEYS[key]];
          const around = modifier ? [{ type: "keyDown", value: modifier }] : [];
          const keys = [...around, { type: "keyDown", value: pressed }, { type: "keyUp", value: pressed }];
          if (modifier) keys.push({ type: "keyUp", value: modifier });
          await send("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: keys }] });
          await send("DELETE", "/actions");
        },
        text: async (target = "main") =>
          withoutPhraseBreaks((await send("GET", `/element/${await first(target)}/text`)) as string),
        visible: async (target) => (await displayed(target)).length,
        // The window's outer size: the page's own width is the window's less a classic scrollbar, where one shows.
        resize: async (width, height) => void (await send("POST", "/window/rect", { width, height })),
        exec,
        cookies: async () => (await send("GET", "/cookie")) as never,
        // WebDriver deletes the current document's site's cookies: the tab is on the site already.
        forgetSite: async () => {
          await send("DELETE", "/cookie");
          await exec(CLEAR_STORAGE);
        },
        setCookies: async (origin, cookies) => {
          // WebDriver adds cookies to the current document's site: the window goes to one of its pages first, unless
          // it shows one already (a journey's tab starts on SITE_FILE, the line-break check's on the last screen).
          site = origin;
          const at = (await send("GET", "/url")) as string;
          if (!at.startsWith(`${origin}/`)) await send("POST", "/url", { url: `${origin}${SITE_FILE}` });
          for (const { name, value } of cookies)
            await send("POST", "/cookie", { cookie: { name, value, path: "/", secure: true, httpOnly: true } });
        },
        screenshot: async (target) => {
          // WebKitGTK's element screenshots come out black under Xvfb: the element is cut out of the viewport's,
          // after it is scrolled into the viewport (a screenshot is of the viewport alone: WPE's is 800 × 600).
          const box = target
            ? await send("POST", "/execute/sync", {
                script: `arguments[0].scrollIntoView({ block: "center" });
                  const r = arguments[0].getBoundingClientRect();
                  return [r.x, r.y, r.width, r.height, devicePixelRatio];`,
                args: [{ [ELEMENT]: await first(target) }],
              })
            : undefined;
          const viewport = Buffer.from((await send("GET", "/screenshot")) as string, "base64");
          return box ? cutOut(viewport, box as number[]) : viewport;
        },
        // The driver sees only where the tab is: a later navigation there is the one watched for.
        watchFor: (prefix) => async () => {
          let url = "";
          await until(async () => {
            url = (await send("GET", "/url")) as string;
            return url.startsWith(prefix);
          }, `the tab at ${prefix}`);
          return new URL(url);
        },
        reached(prefix) {
          return this.watchFor(prefix)();
        },
        newTab: async () => {
          const opened = (await send("POST", "/window/new", { type: "tab" })) as { handle: string };
          return tab(session, opened.handle, false);
        },
        close: async () => {
          if (!owner) {
            await send("DELETE", "/window");
            current = "";
            return;
          }
          // Cookies are deleted for the document's site, so the window goes back to one of its pages first. A
          // browser that cannot be cleaned is ended instead: the next journey starts a new one.
          try {
            await send("POST", "/url", { url: `${site}${SITE_FILE}` });
            await send("DELETE", "/cookie");
            const left = (await send("GET", "/cookie")) as unknown[];
            if (left.length) throw new Error(`${left.length} cookies left`);
            await send("POST", "/execute/sync", {
              script: "localStorage.clear(); sessionStorage.clear(); return true;",
              args: [],
            });
          } catch {
            await endKept();
          }
        },
      };
    }
  }
  return {
    page,
    stop: async () => {
      await endKept();
      driver.kill("SIGTERM");
      xvfb?.process.kill("SIGTERM");
    },
  };
}
