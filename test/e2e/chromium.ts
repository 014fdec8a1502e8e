import { ensureDebianPackages } from "./debian";

/** Debian's full Chromium: Lighthouse's browser (`npm run lighthouse`), which wants the new headless mode. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Debian's Chromium headless shell (the old headless mode): the browser tests' and the gallery's Chromium, the same
 * Blink and V8 without the full browser's UI layers, and the build Playwright itself runs for headless tests. On
 * these machines it costs about a third of the CPU per step: a new tab 330 ms instead of 930, a page 200 instead of
 * 520, as measured when it was chosen.
 */
export const HEADLESS_SHELL_PATH = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? "/usr/bin/chromium-headless-shell";

// As root here Chromium needs --no-sandbox; the network flags stop it calling Google's hosts (architecture §9).
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/**
 * The browser tests need Debian's Chromium: the headless shell unless a path is given, with the Japanese fonts.
 */
export function ensureChromium(path: string = HEADLESS_SHELL_PATH): void {
  const debianPackage = path === CHROMIUM_PATH ? "chromium" : "chromium-headless-shell";
  ensureDebianPackages("Chromium", {
    [path]: debianPackage,
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc": "fonts-noto-cjk",
  });
}
