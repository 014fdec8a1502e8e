import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian's full Chromium: Lighthouse's browser (`npm run lighthouse`), which wants the new headless mode. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Debian's Chromium headless shell (the old headless mode): the browser tests' and the gallery's Chromium, the same
 * Blink and V8 without the full browser's UI layers, and the build Playwright itself runs for headless tests. On
 * these machines it costs about a third of the CPU per step: a new tab 330 ms instead of 930, a page 200 instead of
 * 520 (docs/testing.md).
 */
export const HEADLESS_SHELL_PATH = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? "/usr/bin/chromium-headless-shell";

// As root here Chromium needs --no-sandbox; the network flags stop it calling Google's hosts (ARCHITECTURE §9).
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

const PACKAGES = { [CHROMIUM_PATH]: "chromium", [HEADLESS_SHELL_PATH]: "chromium-headless-shell" };

/**
 * The browser tests need Debian's Chromium (playwright's own download cannot work on these machines): the headless
 * shell unless a path is given. Installs it, with the Japanese fonts, when run as root on Debian; otherwise fails
 * naming the fix. Never skips.
 */
export function ensureChromium(path: string = HEADLESS_SHELL_PATH): void {
  if (existsSync(path)) return;
  const debianPackage = PACKAGES[path] ?? "chromium-headless-shell";
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !existsSync("/etc/debian_version")) {
    throw new Error(
      `Chromium is missing at ${path}. Install it with: sudo apt-get install -y ${debianPackage} fonts-noto-cjk (or set CHROMIUM_PATH / CHROMIUM_HEADLESS_SHELL_PATH).`,
    );
  }
  console.log(`[e2e] installing Debian's ${debianPackage} and Japanese fonts (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", debianPackage, "fonts-noto-cjk"], {
    stdio: "inherit",
    env,
  });
  if (!existsSync(path)) throw new Error(`apt-get finished but ${path} is still missing`);
}
