import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, ensureChromium, HEADLESS_SHELL_PATH } from "../../test/e2e/chromium";
import { buildForE2e, type RunningServer } from "../../test/e2e/server";
import { startWorkerdSite } from "../../test/e2e/workerdSite";
import { emulatorClient } from "../../test/support/emulatorClient";
import { SCREEN_THEMES, screenCookies, themeScreens } from "../../test/support/screenThemes";

// `npm run gallery`: builds the site with the dev environment, serves it on the local workerd, and saves pictures to
// review before a deploy. Not a test (the browser tests check the same screens: test/e2e/screens.test.ts):
// - a full-page screenshot of /__gallery (every brand's sign-in card) as a contact sheet,
//   test-results/gallery/contact-sheet.png;
// - every screen of the neutral theme and three brands, JavaScript on, at a phone's viewport, full page,
//   test-results/screens/<theme>/<screen>.png.
// `SCREENS=sign-in,consent` and `THEMES=default,liqueur-lemon` take a part of them; `CONTACT_SHEET=0` leaves out the sheet.

// npm scripts run from the project root.
const ROOT = process.cwd();
const PORT = Number(process.env.GALLERY_PORT ?? 4339);
const OUT = join(ROOT, "test-results/gallery/contact-sheet.png");
const SCREENS_OUT = join(ROOT, "test-results/screens");
const VIEWPORT = { width: 414, height: 896 };

const listed = (name: string) => process.env[name]?.split(",").filter(Boolean);

async function contactSheet(browser: Browser, url: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const response = await page.goto(`${url}/__gallery`, { waitUntil: "networkidle" });
  if (response?.status() !== 200) throw new Error(`/__gallery answered ${response?.status()}`);
  // Every logo loaded (a broken image would pass unnoticed in a screenshot of 45 cards).
  const broken = await page.$$eval("img", (images) =>
    images.filter((image) => !image.complete || image.naturalWidth === 0).map((image) => image.src),
  );
  if (broken.length) throw new Error(`images that did not load: ${broken.join(", ")}`);
  const brands = await page.locator("section.gallery-item").count();
  if (brands === 0) throw new Error("/__gallery shows no brand");
  mkdirSync(join(ROOT, "test-results/gallery"), { recursive: true });
  await page.screenshot({ path: OUT, fullPage: true });
  await page.close();
  console.log(`[gallery] ${brands} brands → ${OUT}`);
}

/** Every screen of every theme (or those SCREENS and THEMES name), as the browser tests open them. */
async function screens(browser: Browser, url: string): Promise<number> {
  const upstream = emulatorClient((path, init) => fetch(`${url}${path}`, { ...init, redirect: "manual" }));
  const onlyScreens = listed("SCREENS");
  const onlyThemes = listed("THEMES");
  let count = 0;
  for (const theme of SCREEN_THEMES.filter(({ label }) => !onlyThemes || onlyThemes.includes(label))) {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: "ja-JP" });
    const page = await context.newPage();
    mkdirSync(join(SCREENS_OUT, theme.label), { recursive: true });
    for (const screen of themeScreens(theme).filter(({ name }) => !onlyScreens || onlyScreens.includes(name))) {
      await context.clearCookies();
      await context.setExtraHTTPHeaders({ Cookie: (await screenCookies(theme.brand, screen)).join("; ") });
      await upstream.clearFaults();
      for (const fault of screen.upstream ?? []) await upstream.fault(fault);
      const response = await page.goto(`${url}${screen.path}`, { waitUntil: "load" });
      // A picture of the wrong page is worse than none: the screen must be the one the browser tests check.
      if (response?.status() !== screen.status)
        throw new Error(`${theme.label}/${screen.name}: ${response?.status()}, not ${screen.status}`);
      await page.getByText(screen.expectText, { exact: false }).first().waitFor({ state: "visible" });
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll("[data-island]")).every((host) => host.hasAttribute("data-hydrated")),
      );
      const out = join(SCREENS_OUT, theme.label, `${screen.name}.png`);
      await page.screenshot({ path: out, fullPage: true });
      count++;
    }
    await context.close();
    console.log(`[gallery] ${theme.label} → ${join(SCREENS_OUT, theme.label)}`);
  }
  await upstream.clearFaults();
  if (count === 0) throw new Error("SCREENS and THEMES left no screen to picture");
  return count;
}

async function main(): Promise<void> {
  ensureChromium();
  buildForE2e();
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startWorkerdSite(PORT);
    browser = await chromium.launch({ executablePath: HEADLESS_SHELL_PATH, args: CHROMIUM_ARGS, headless: true });
    if (process.env.CONTACT_SHEET !== "0") await contactSheet(browser, server.url);
    const count = await screens(browser, server.url);
    console.log(`[gallery] ${count} screens → ${SCREENS_OUT}`);
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
