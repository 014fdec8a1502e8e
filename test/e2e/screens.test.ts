import { readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScreenBrand, ScreenCase } from "../support/screens";
import { SCREEN_THEMES, screenCookies, themeScreens } from "../support/screenThemes";
import { GUNGNIR } from "../support/vocabulary";
import { chromiumForFile, islandsHydrated, siteUrl, withCookies } from "./browser";
import { emulator } from "./journeys";
import { forcedColourLosses, layoutLosses, setTextSize, smallTargets, TEXT_SPACING_CSS } from "./layoutAudit";

// Every screen for the neutral theme and three brands: an axe audit with script on (no serious or critical
// violation), its targets (24 × 24 px) and what forced colours leave of it; and the same page with JavaScript
// disabled rendering completely, then 320 px wide, at 200 % text and with wider text spacing without losing text
// (layoutAudit.ts; docs/accessibility.md). Each is checked on the page already loaded. Their pictures are not taken
// here: a screenshot that nothing compares proves nothing, and `npm run gallery` saves every one to look at
// (tools/gallery/run.ts).

const baseUrl = siteUrl();
const axeSource = readFileSync("node_modules/axe-core/axe.min.js", "utf8");
const upstream = emulator(baseUrl);

const browser = chromiumForFile();

/** The tabs' viewport, a phone's; and WCAG 1.4.10's narrow one (1280 px at 400 %), on a small phone's height. */
const PHONE = { width: 414, height: 896 };
const NARROW = { width: 320, height: 568 };

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
      viewport: PHONE,
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

/** Opens the screen with its state and upstream answers; answers the document's status (none fails). */
async function open(page: Page, brand: ScreenBrand, screen: ScreenCase): Promise<number> {
  await withCookies(page.context(), await screenCookies(brand, screen));
  for (const fault of screen.upstream ?? []) await upstream.fault(fault);
  const response = await page.goto(`${baseUrl}${screen.path}`, { waitUntil: "load" });
  expect(response, `${screen.path} answered no document`).not.toBeNull();
  return response?.status() ?? 0;
}

/** The serious and critical violations axe (an init script of the tab) finds in the page, one line each. */
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

for (const theme of SCREEN_THEMES) {
  const { label, brand } = theme;
  const cases = themeScreens(theme);

  describe(`screens in the ${label} theme`, () => {
    const scripted = reusedTab(true);
    const scriptless = reusedTab(false);

    it.each(cases.map((screen) => [screen.name, screen] as const))(
      "%s: renders, hydrates, passes axe; targets of 24 px, forced colours",
      async (_name, screen) => {
        const page = await scripted();
        expect(await open(page, brand, screen)).toBe(screen.status);
        await expect.poll(() => page.getByText(screen.expectText, { exact: false }).first().isVisible()).toBe(true);
        await islandsHydrated(page);
        // Every field of the screen is an island (islands/host.tsx), and hydrated: a field rendered without its host
        // would leave the wait above nothing to wait for.
        expect(await page.locator("[data-island][data-hydrated] input.field-input").count()).toBe(
          await page.locator("input.field-input").count(),
        );
        // Hydrated, every password field shows its show/hide toggle (hidden until then: without script it could
        // not work).
        expect(await page.locator(".password-toggle:visible").count()).toBe(
          await page.locator("input[type=password]").count(),
        );
        expect(await seriousAxeViolations(page)).toEqual([]);
        // With script every control shows (the password toggle, the copy button). Forced colours come last: the
        // audit moves the focus through every control.
        expect.soft(await page.evaluate(smallTargets), "targets under 24 × 24 px").toEqual([]);
        await page.emulateMedia({ forcedColors: "active" });
        try {
          expect.soft(await page.evaluate(forcedColourLosses), "forced colours").toEqual([]);
        } finally {
          await page.emulateMedia({ forcedColors: "none" });
        }
      },
    );

    it.each(cases.map((screen) => [screen.name, screen] as const))(
      "%s: renders completely with JavaScript disabled; 320 px, 200 % text, text spacing",
      async (_name, screen) => {
        const page = await scriptless();
        expect(await open(page, brand, screen)).toBe(screen.status);
        expect(await page.getByText(screen.expectText, { exact: false }).first().isVisible()).toBe(true);
        expect(await page.locator("h1").count()).toBe(1);
        expect(
          await page.locator("img.logo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        ).toBe(true);
        const fields = page.locator("form[method=post] input:not([type=hidden]):not([hidden])");
        const labelled = await fields.evaluateAll(
          (inputs) => inputs.filter((input) => (input as HTMLInputElement).labels?.length).length,
        );
        expect(labelled).toBe(await fields.count());
        // Each password field's toggle is in the page but hidden: it needs script to work.
        expect(await page.locator(".password-toggle").count()).toBe(await page.locator("input[type=password]").count());
        expect(await page.locator(".password-toggle:visible").count()).toBe(0);
        // Without script a modal the server opened is an open dialog over the page, not a modal one: the layout's
        // harder case. Each mode is applied to the page as it stands and taken away after, but the spacing, which
        // the next page is without; each reports its own losses.
        await page.setViewportSize(NARROW);
        try {
          const narrow = await page.evaluate(layoutLosses, { width: NARROW.width, remember: true });
          expect.soft(narrow, "320 px wide").toEqual([]);
        } finally {
          await page.setViewportSize(PHONE);
        }
        await setTextSize(page, 2);
        try {
          expect.soft(await page.evaluate(layoutLosses, { enlargedBy: 2 }), "200 % text").toEqual([]);
        } finally {
          await setTextSize(page, 1);
        }
        const spaced = await page.evaluate(layoutLosses, { spacing: TEXT_SPACING_CSS, overlap: true });
        expect.soft(spaced, "text spacing").toEqual([]);
      },
    );
  });
}

describe("the axe audit", () => {
  it("finds a serious violation the page has: the detector's positive control", async () => {
    const context = await browser().newContext({ bypassCSP: true, locale: "ja-JP" });
    try {
      await context.addInitScript({ content: axeSource });
      const page = await context.newPage();
      const signIn = themeScreens({ label: GUNGNIR.serviceId, brand: GUNGNIR }).find(({ name }) => name === "sign-in");
      if (!signIn) throw new Error("no sign-in screen in the screen list");
      expect(await open(page, GUNGNIR, signIn)).toBe(200);
      await islandsHydrated(page);
      // The same audit as every screen's, on the page as served, then with a button that has no name (critical).
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", "<button></button>"));
      expect(await seriousAxeViolations(page)).toEqual([expect.stringMatching(/^button-name \(critical\)/)]);
    } finally {
      await context.close();
    }
  });
});
