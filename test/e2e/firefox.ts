import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

// Firefox ESR for the browser tests (issue 22; ../shared/research/browser-engines.md): Debian's firefox-esr driven
// over WebDriver BiDi by puppeteer-core (24.x: its engines allow Node 20). JavaScript off is the `javascript.enabled`
// pref for the whole browser, under which puppeteer's element clicks never settle: `clickAt` clicks by coordinates.

const FIREFOX = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";

/** Installs Debian's firefox-esr when missing (root on Debian), else fails naming the fix. Never skips. */
export function ensureFirefox(): void {
  if (existsSync(FIREFOX)) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !existsSync("/etc/debian_version"))
    throw new Error("Firefox ESR is missing. Install it with: sudo apt-get install -y firefox-esr");
  console.log("[e2e] installing Debian's firefox-esr (apt-get)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "firefox-esr"], {
    stdio: "inherit",
    env,
  });
}

/** A headless Firefox that takes the local HTTPS certificate; JavaScript on or off for the whole browser. */
export function launchFirefox({ javaScript = true } = {}): Promise<Browser> {
  ensureFirefox();
  return puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    acceptInsecureCerts: true,
    extraPrefsFirefox: { "javascript.enabled": javaScript, "intl.accept_languages": "ja-JP" },
  });
}

/** Clicks the middle of the element: works with JavaScript on and off. */
export async function clickAt(page: Page, css: string): Promise<void> {
  const box = await (await page.$(css))?.boundingBox();
  if (!box) throw new Error(`nothing to click at ${css}`);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}
