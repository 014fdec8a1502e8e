import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, ensureChromium, HEADLESS_SHELL_PATH } from "../../test/e2e/chromium";
import { until } from "../../test/e2e/enginePage";
import { firefoxPage, launchFirefox } from "../../test/e2e/firefox";
import { buildForE2e } from "../../test/e2e/server";
import { startWebKit } from "../../test/e2e/webkit";
import { startWorkerdSite } from "../../test/e2e/workerdSite";
import { type ScreenCase, screenCases } from "../../test/support/screens";
import { screenCookies } from "../../test/support/screenThemes";
import { GUNGNIR } from "../../test/support/vocabulary";
import { sideBySide } from "./sideBySide";

// `npm run gallery:engines`: every screen of one brand in Chromium, WebKitGTK and Firefox ESR, JavaScript
// on, at a phone's viewport, saved side by side (test-results/engines/<screen>.png: Chromium | WebKitGTK | Firefox)
// to look for what differs between the engines. Not a test: the journeys are (docs/browsers.md).

const ROOT = process.cwd();
const PORT = Number(process.env.GALLERY_PORT ?? 4349);
const OUT = join(ROOT, "test-results/engines");
const BRAND = GUNGNIR;
const VIEWPORT = { width: 414, height: 896 };
/** Every island of the page hydrated (islands/client.tsx marks each host): the page as a user sees it. */
const HYDRATED = `() => [...document.querySelectorAll("[data-island]")].every((host) => host.hasAttribute("data-hydrated"))`;

/** A screen's sealed state as cookies, with the brand the screen's user came from (architecture §6). */
async function cookiesOf(screen: ScreenCase): Promise<{ name: string; value: string }[]> {
  return (await screenCookies(BRAND, screen)).map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}

async function main(): Promise<void> {
  ensureChromium();
  buildForE2e();
  const server = await startWorkerdSite(PORT, { https: true });
  const webkit = await startWebKit("webkitgtk");
  const firefox = await launchFirefox();
  const chrome = await chromium.launch({ executablePath: HEADLESS_SHELL_PATH, args: CHROMIUM_ARGS, headless: true });
  // The screens whose content an upstream fault supplies are left out: faults would reach every engine's screen.
  const only = process.env.SCREENS?.split(",");
  const screens = screenCases(GUNGNIR).filter(
    (screen) => !screen.upstream?.length && (!only || only.includes(screen.name)),
  );
  mkdirSync(OUT, { recursive: true });
  try {
    const context = await chrome.newContext({ viewport: VIEWPORT, locale: "ja-JP", ignoreHTTPSErrors: true });
    const tab = await context.newPage();
    for (const screen of screens) {
      const engines = [await webkit.page({ javaScript: true }), await firefoxPage(firefox, true)];
      const cookies = await cookiesOf(screen);
      const url = `${server.url}${screen.path}`;
      await context.clearCookies();
      await context.setExtraHTTPHeaders({ Cookie: cookies.map(({ name, value }) => `${name}=${value}`).join("; ") });
      await tab.goto(url, { waitUntil: "load" });
      await tab.waitForFunction(HYDRATED);
      const shots = [await tab.screenshot()];
      for (const page of engines) {
        await page.setCookies(server.url, cookies);
        await page.go(url);
        await until(
          async () => (await page.text("body")).includes(screen.expectText),
          `${screen.name} in ${page.engine}`,
        );
        await until(() => page.exec<boolean>(`return (${HYDRATED})();`), `${screen.name}'s islands in ${page.engine}`);
        console.log(`[gallery:engines] ${screen.name} in ${page.engine}`);
        shots.push(await page.screenshot());
        await page.close();
      }
      writeFileSync(join(OUT, `${screen.name}.png`), sideBySide(shots));
      console.log(`[gallery:engines] ${screen.name}`);
    }
  } finally {
    await chrome.close();
    await firefox.close();
    await webkit.stop();
    await server.stop();
  }
  console.log(`[gallery:engines] ${screens.length} screens → ${OUT}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
