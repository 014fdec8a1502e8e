import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, ensureChromium, HEADLESS_SHELL_PATH } from "../e2e/chromium";
import { buildForE2e, type RunningServer, startPreview } from "../e2e/server";

// `npm run gallery`: builds the site with the dev environment, serves it on the local workerd, and saves a full-page
// screenshot of /__gallery (every brand's sign-in card) as a contact sheet to review before a deploy. Not a test.

// npm scripts run from the project root.
const ROOT = process.cwd();
const PORT = Number(process.env.GALLERY_PORT ?? 4339);
const OUT = join(ROOT, "test-results/gallery/contact-sheet.png");

async function main(): Promise<void> {
  ensureChromium();
  buildForE2e();
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startPreview(PORT);
    browser = await chromium.launch({ executablePath: HEADLESS_SHELL_PATH, args: CHROMIUM_ARGS, headless: true });
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const response = await page.goto(`${server.url}/__gallery`, { waitUntil: "networkidle" });
    if (response?.status() !== 200) throw new Error(`/__gallery answered ${response?.status()}`);
    // Every logo loaded (a broken image would pass unnoticed in a screenshot of 45 cards).
    const broken = await page.$$eval("img", (images) =>
      images.filter((image) => !image.complete || image.naturalWidth === 0).map((image) => image.src),
    );
    if (broken.length) throw new Error(`images that did not load: ${broken.join(", ")}`);
    const brands = await page.locator("section.gallery-item").count();
    mkdirSync(join(ROOT, "test-results/gallery"), { recursive: true });
    await page.screenshot({ path: OUT, fullPage: true });
    console.log(`[gallery] ${brands} brands → ${OUT}`);
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
