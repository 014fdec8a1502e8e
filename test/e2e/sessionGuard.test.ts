import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buttonLabels } from "../../messages/ja";
import { sampleClientIds } from "../../themes/data/clients";
import { launchChromium, scriptsLoadedBy } from "./browser";

// SPEC §4/§8 session guard in Chromium: the tab that acts last keeps the session, the other one is disabled.

const baseUrl = inject("baseUrl");
const MARKER_KEY = "signin.tabMarker";
const OTHER_TAB_TITLE = "操作が中断されました";
const OTHER_TAB_BODY =
  "現在、別のタブでこのサイトを開いているため、セッションが切断されました。1つのタブでの操作をお願いします。";
// A guarded journey screen that needs no sealed state: once the site sets a cookie, Chromium sends its own jar
// instead of a planted Cookie header, so a second tab could not carry a planted sign-in state.
const guardedPath = `/resetPassword?client_id=${sampleClientIds.gungnir}`;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

function guardContext(): Promise<BrowserContext> {
  return browser.newContext({ locale: "ja-JP" });
}

/** Opens the screen and waits until the guard has hydrated and recorded this tab's marker. */
async function openGuarded(context: BrowserContext, path = guardedPath): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}${path}`);
  await expect.poll(() => page.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY)).toMatch(/^[0-9a-f]{32}$/);
  return page;
}

function guardState(page: Page) {
  return page.evaluate(() => ({
    modal: document.querySelector("[data-session-guard]")?.textContent ?? null,
    // `inert` is inherited: the main content is inert when it or an ancestor carries the attribute.
    mainInert: document.querySelector("main")?.closest("[inert]") != null,
    favicon: document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.getAttribute("href") ?? "",
  }));
}

describe("session guard (SPEC §4, §8)", () => {
  it("disables the first tab when the site is used in a second one; the second keeps working", async () => {
    const context = await guardContext();
    try {
      const tabA = await openGuarded(context);
      const faviconBefore = (await guardState(tabA)).favicon;
      expect(faviconBefore).toMatch(/^\/brands\/gungnir-aurora\/favicon\.svg$/);
      // Using tab A alone never blocks it.
      await tabA.locator("#field-email").fill("someone");
      expect((await guardState(tabA)).modal).toBeNull();

      const tabB = await openGuarded(context);
      await tabB.locator("#field-email").fill("taro.yamada");

      await expect.poll(async () => (await guardState(tabA)).modal).toContain(OTHER_TAB_TITLE);
      await expect.poll(async () => (await guardState(tabA)).mainInert).toBe(true);
      const blocked = await guardState(tabA);
      expect(blocked.modal).toContain(OTHER_TAB_BODY);
      expect(blocked.mainInert).toBe(true);
      expect(blocked.favicon).toMatch(/^data:image\/svg\+xml,/);
      const dialog = tabA.locator("[data-session-guard]");
      expect(await dialog.isVisible()).toBe(true);
      expect(await tabA.getByRole("dialog", { name: OTHER_TAB_TITLE }).count()).toBe(1);
      // Not closable: no control inside, Escape does nothing, the form behind cannot be reached.
      expect(await dialog.locator("button, a, form").count()).toBe(0);
      await tabA.keyboard.press("Escape");
      expect(await dialog.isVisible()).toBe(true);
      await expect(tabA.locator("#field-email").fill("x", { timeout: 1000 })).rejects.toThrow();
      expect(await tabA.locator("#field-email").inputValue()).toBe("someone");
      // The disabled tab records nothing more, so pressing keys in it does not take the session back.
      await tabA.keyboard.type("abc");

      await tabB.bringToFront();
      await tabB.locator("#field-email").fill("taro.yamada@example.com");
      const b = await guardState(tabB);
      expect(b.modal).toBeNull();
      expect(b.mainInert).toBe(false);
      expect(b.favicon).toBe(faviconBefore);
      expect(await tabB.locator("#field-email").inputValue()).toBe("taro.yamada@example.com");
      await expect.poll(() => tabB.getByRole("button", { name: buttonLabels.send }).isEnabled()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("keeps nothing but one random marker in storage", async () => {
    const context = await guardContext();
    try {
      const page = await openGuarded(context);
      await page.locator("#field-email").fill("taro.yamada");
      const stored = await page.evaluate(() => ({ local: { ...localStorage }, session: { ...sessionStorage } }));
      expect(Object.keys(stored.local)).toEqual([MARKER_KEY]);
      expect(Object.keys(stored.session)).toEqual([MARKER_KEY]);
      expect(stored.local[MARKER_KEY]).toBe(stored.session[MARKER_KEY]);
      expect(stored.local[MARKER_KEY]).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await context.close();
    }
  });

  it("is not on a screen without islands, which still loads no script", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      expect(await scriptsLoadedBy(page, `${baseUrl}/no/such/page`)).toEqual([]);
      expect(await page.locator('[data-island="SessionGuard"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
