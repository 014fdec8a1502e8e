import { mkdirSync, readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { type ScreenBrand, type ScreenCase, screenCases } from "../support/screens";
import { chromiumForFile, islandsHydrated, sealedCookie, siteUrl, withCookies } from "./browser";
import { emulator } from "./journeys";

// Every screen for the neutral theme and three brands: a screenshot, an axe audit (no serious or critical
// violation), and the same page with JavaScript disabled rendering completely.

const baseUrl = siteUrl();
const GALLERY = "test-results/screens";
const axeSource = readFileSync("node_modules/axe-core/axe.min.js", "utf8");
const upstream = emulator(baseUrl);

const themes: Array<{ label: string; brand: ScreenBrand }> = [
  // An unmapped client id resolves no service: the neutral black-and-white theme.
  { label: "default", brand: { serviceId: "default", clientId: "no-such-client" } },
  { label: "gungnir-aurora", brand: { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir } },
  { label: "liqueur-lemon", brand: { serviceId: "liqueur-lemon", clientId: sampleClientIds.lemon } },
  {
    label: "liqueur-lemon-money-forword",
    brand: { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner },
  },
];

const browser = chromiumForFile();

/**
 * One tab per theme and JavaScript setting, reused screen after screen: a new page costs a renderer process (about
 * half a second), a navigation in the same tab a tenth of that. The accessor hands the tab over clean: no cookie
 * but the screen's own state (set by `open`), no stored value, no emulator fault left over.
 */
function reusedTab(javaScriptEnabled: boolean): () => Promise<Page> {
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    context = await browser().newContext({
      javaScriptEnabled,
      // The axe audit's script runs in pages whose CSP would refuse it.
      bypassCSP: javaScriptEnabled,
      viewport: { width: 414, height: 896 },
      locale: "ja-JP",
    });
    // axe is in every document of the scripted tab from its start: registered once, not sent over the protocol
    // (500 KB) and compiled again for each screen.
    if (javaScriptEnabled) await context.addInitScript({ content: axeSource });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });
  return async () => {
    if (!context || !page) throw new Error("reusedTab: the tab exists only while its describe block runs");
    await context.clearCookies();
    if (javaScriptEnabled && page.url().startsWith(baseUrl))
      await page.evaluate(() => {
        localStorage.clear();
        sessionStorage.clear();
      });
    await upstream.clearFaults();
    return page;
  };
}

async function open(page: Page, brand: ScreenBrand, screen: ScreenCase): Promise<number> {
  const cookies = await Promise.all(
    Object.entries(screen.state).map(([which, value]) => sealedCookie(which as never, value as never)),
  );
  // Screens reached without a client_id keep the service the user came from (ARCHITECTURE §6).
  if (brand.serviceId !== "default") cookies.push(`__Host-service=${brand.serviceId}`);
  await withCookies(page.context(), cookies);
  for (const fault of screen.upstream ?? []) await upstream.fault(fault);
  const response = await page.goto(`${baseUrl}${screen.path}`, { waitUntil: "load" });
  return response?.status() ?? 0;
}

async function seriousAxeViolations(page: Page): Promise<string[]> {
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            options: object,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(", ")}`);
}

for (const { label, brand } of themes) {
  // Screens under /{tenantId}/ exist only for a real service.
  const cases = screenCases(brand).filter(
    (screen) => label !== "default" || !screen.path.startsWith(`/${brand.serviceId}/`),
  );

  describe(`screens in the ${label} theme`, () => {
    const scripted = reusedTab(true);
    const scriptless = reusedTab(false);

    it.each(cases.map((screen) => [screen.name, screen] as const))(
      "%s: renders, passes axe, screenshot",
      async (_name, screen) => {
        const page = await scripted();
        expect(await open(page, brand, screen)).toBe(screen.status);
        await expect.poll(() => page.getByText(screen.expectText, { exact: false }).first().isVisible()).toBe(true);
        await islandsHydrated(page);
        mkdirSync(`${GALLERY}/${label}`, { recursive: true });
        await page.screenshot({ path: `${GALLERY}/${label}/${screen.name}.png`, fullPage: true });
        expect(await seriousAxeViolations(page)).toEqual([]);
      },
    );

    it.each(cases.map((screen) => [screen.name, screen] as const))(
      "%s: renders completely with JavaScript disabled",
      async (_name, screen) => {
        const page = await scriptless();
        expect(await open(page, brand, screen)).toBe(screen.status);
        expect(await page.getByText(screen.expectText, { exact: false }).first().isVisible()).toBe(true);
        expect(await page.locator("h1").count()).toBe(1);
        expect(
          await page.locator("img.logo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        ).toBe(true);
        const fields = await page.locator("form[method=post] input:not([type=hidden])").count();
        const labelled = await page
          .locator("form[method=post] input:not([type=hidden])")
          .evaluateAll((inputs) => inputs.filter((input) => (input as HTMLInputElement).labels?.length).length);
        expect(labelled).toBe(fields);
        expect(await page.locator(".password-toggle:visible").count()).toBe(0);
      },
    );
  });
}
