import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_ARGS, ensureChromium, HEADLESS_SHELL_PATH } from "../../test/e2e/chromium";
import { buildForE2e } from "../../test/e2e/server";
import { startWorkerdSite } from "../../test/e2e/workerdSite";
import { emulatorClient } from "../../test/support/emulatorClient";
import { screenCases, stepUpSignInCase } from "../../test/support/screens";
import { screenCookies } from "../../test/support/screenThemes";
import { GUNGNIR } from "../../test/support/vocabulary";
import { sideBySide } from "./sideBySide";

// `npm run gallery:line-breaks`: Japanese line breaks before and after (docs/accessibility.md, "Japanese line
// breaks"), to look at. A few key screens of one brand in Chromium at 320 and 375 CSS px, each as the site renders
// it and as it rendered before: its phrase-boundary markers taken out of the page and the stylesheet's line-break
// rules undone in it (the browser's defaults, what the site had), so that no second build is needed. Saved side by
// side: test-results/line-breaks/<screen>.png, 320 before | 320 after | 375 before | 375 after. `SCREENS=` names
// others of the screen list, `SCREENS=all` takes every one. Not a test: test/e2e/lineBreaks.ts is.

const ROOT = process.cwd();
const PORT = Number(process.env.GALLERY_PORT ?? 4359);
const OUT = join(ROOT, "test-results/line-breaks");
const WIDTHS = [320, 375];
/** The step-up page, the sign-in card, a modal the server opens for a refused request, and a page of long steps. */
const KEY_SCREENS = ["sign-in-step-up", "sign-in", "entry-parameter-error", "mfa-setup-totp"];

/**
 * The page as it was before the marking: no zero-width space in its text, and site.css's line-break rules (on body,
 * which the page's text inherits, and on headings) set back to the browser's defaults.
 */
const UNMARK = `(() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) node.data = node.data.split("\\u200b").join("");
  const style = document.createElement("style");
  style.textContent = "body{word-break:normal!important;overflow-wrap:normal!important;line-break:auto!important}h1,h2{text-wrap:wrap!important}";
  document.head.append(style);
})()`;

async function shots(page: Page): Promise<Buffer[]> {
  const after: Buffer[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 720 });
    after.push(await page.screenshot({ fullPage: true }));
  }
  await page.evaluate(UNMARK);
  const before: Buffer[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 720 });
    before.push(await page.screenshot({ fullPage: true }));
  }
  return WIDTHS.flatMap((_, index) => [before[index] as Buffer, after[index] as Buffer]);
}

async function main(): Promise<void> {
  ensureChromium();
  buildForE2e();
  const server = await startWorkerdSite(PORT);
  const browser = await chromium.launch({ executablePath: HEADLESS_SHELL_PATH, args: CHROMIUM_ARGS, headless: true });
  const upstream = emulatorClient((path, init) => fetch(`${server.url}${path}`, { ...init, redirect: "manual" }));
  const all = [...screenCases(GUNGNIR), stepUpSignInCase(GUNGNIR)];
  const wanted =
    process.env.SCREENS === "all" ? all.map(({ name }) => name) : (process.env.SCREENS?.split(",") ?? KEY_SCREENS);
  const screens = all.filter(({ name }) => wanted.includes(name));
  mkdirSync(OUT, { recursive: true });
  try {
    // The undoing style is added by a page script, which the site's CSP would refuse.
    const context = await browser.newContext({ locale: "ja-JP", bypassCSP: true });
    const page = await context.newPage();
    for (const screen of screens) {
      await context.clearCookies();
      await context.setExtraHTTPHeaders({ Cookie: (await screenCookies(GUNGNIR, screen)).join("; ") });
      for (const fault of screen.upstream ?? []) await upstream.fault(fault);
      await page.setViewportSize({ width: WIDTHS[0] ?? 320, height: 720 });
      await page.goto(`${server.url}${screen.path}`, { waitUntil: "load" });
      await page.getByText(screen.expectText, { exact: false }).first().waitFor({ state: "visible" });
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll("[data-island]")).every((host) => host.hasAttribute("data-hydrated")),
      );
      writeFileSync(join(OUT, `${screen.name}.png`), sideBySide(await shots(page)));
      console.log(`[gallery:line-breaks] ${screen.name}`);
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  console.log(`[gallery:line-breaks] ${screens.length} screens → ${OUT} (320 before | after | 375 before | after)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
