import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { View } from "../../worker/session/authRequest";
import { GUNGNIR, PARTNER, PASSWORD } from "../support/vocabulary";
import { chromiumForFile, scriptsLoadedBy, siteUrl } from "./browser";
import { asTestDevice, emulator, openApp } from "./journeys";

// Chromium's alone, for what Playwright gives and EnginePage does not: real key presses (the guard counts a key as
// use), bringing a tab to the front, closing a tab with its beforeunload, reloading, and the referrer a page script's
// navigation leaves. The guard across two tabs itself runs in every engine that opens two (engineJourneys.ts).
// product §4/§8 session guard in Chromium, on screens reached by real journeys (their cookies in the browser's jar,
// shared by every tab of the context): a page reached from this site is disabled when another tab of the site
// is used; a page opened from elsewhere (no referrer) is not; the tab used last keeps working.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const MARKER_KEY = "signin.tabMarker";
const OTHER_TAB_TITLE = "操作が中断されました";
const OTHER_TAB_BODY =
  "現在、別のタブでこのサイトを開いているため、セッションが切断されました。1つのタブでの操作をお願いします。";
const consentPath = `/${PARTNER.serviceId}/consent?client_id=${PARTNER.clientId}`;

const browser = chromiumForFile({ emulator: idp });

function guardContext(): Promise<BrowserContext> {
  // The test device, which the seeded users know: their sign-in asks for no device confirmation.
  return asTestDevice(browser(), () => browser().newContext({ locale: "ja-JP" }));
}

/**
 * Waits until this page's guard has hydrated and recorded this tab's marker. The marker alone is no sign: the tab's
 * sessionStorage outlives a navigation, so it still holds the marker of the page before (which, leaving, gave the
 * shared one up) while this page's guard has not run yet.
 */
async function guardActive(page: Page): Promise<void> {
  await page.locator('[data-island="SessionGuard"][data-hydrated]').waitFor({ state: "attached" });
  await expect.poll(() => page.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY)).toMatch(/^[0-9a-f]{32}$/);
}

function guardState(page: Page) {
  return page.evaluate(() => ({
    modal: document.querySelector("[data-session-guard]")?.textContent ?? null,
    // `inert` is inherited: the main content is inert when it or an ancestor carries the attribute.
    mainInert: document.querySelector("main")?.closest("[inert]") != null,
    favicon: document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.getAttribute("href") ?? "",
    referrer: document.referrer,
  }));
}

async function expectDisabled(page: Page): Promise<void> {
  await expect.poll(async () => (await guardState(page)).modal).toContain(OTHER_TAB_TITLE);
  await expect.poll(async () => (await guardState(page)).mainInert).toBe(true);
  const state = await guardState(page);
  expect(state.modal).toContain(OTHER_TAB_BODY);
  expect(state.favicon).toBe("/blocked-tab.svg");
  expect((await page.request.get(`${baseUrl}/blocked-tab.svg`)).headers()["content-type"]).toContain("image/svg+xml");
}

async function expectUsable(page: Page): Promise<void> {
  const state = await guardState(page);
  expect(state.modal).toBeNull();
  expect(state.mainInert).toBe(false);
  expect(state.favicon).toMatch(/^\/brands\//);
}

/** The app opens the site for `view`; the user signs in and lands on `landing` (reached from /signIn). */
async function signInTo(
  context: BrowserContext,
  brand: { serviceId: string; clientId: string },
  view: View,
  landing: string,
): Promise<Page> {
  const email = `guard.${view}@example.com`;
  await idp.seed({ email });
  const app = await openApp(context, baseUrl, brand.serviceId, brand.clientId, view);
  const page = await context.newPage();
  await page.goto(app.startUrl);
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(PASSWORD);
  await Promise.all([
    page.waitForURL(`**${landing}*`),
    page.getByRole("button", { name: "ログイン", exact: true }).click(),
  ]);
  await guardActive(page);
  // Reached through the site's own form and redirects: the referrer is this site (Referrer-Policy: same-origin).
  expect(new URL((await guardState(page)).referrer).origin).toBe(baseUrl);
  return page;
}

/** A tab opened from elsewhere: a fresh tab with no referrer (a bookmark, the app, a link in a mail). */
async function freshTab(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}${path}`);
  await guardActive(page);
  expect((await guardState(page)).referrer).toBe("");
  return page;
}

/** Goes to `path` from the page's own script, so the page is the next one's referrer (as a link would be). */
async function navigateWithin(page: Page, path: string): Promise<void> {
  await Promise.all([
    page.waitForNavigation(),
    page.evaluate((target) => {
      setTimeout(() => window.location.assign(target));
    }, path),
  ]);
}

/** A tab that reaches `path` from another page of this site, as a link opened in a new tab does. */
async function tabFromThisSite(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/error`);
  await navigateWithin(page, path);
  expect(new URL((await guardState(page)).referrer).pathname).toBe("/error");
  return page;
}

describe("session guard (product §4, §8)", () => {
  it("disables the consent screen when the site is used in a fresh tab; the fresh tab keeps working", async () => {
    const context = await guardContext();
    try {
      const tabA = await signInTo(context, PARTNER, "extSignIn", `/${PARTNER.serviceId}/consent`);
      await tabA.keyboard.press("Tab");
      await expectUsable(tabA);

      const tabB = await freshTab(context, consentPath);
      await tabB.keyboard.press("Tab");

      await expectDisabled(tabA);
      const dialog = tabA.locator("[data-session-guard]");
      expect(await tabA.getByRole("dialog", { name: OTHER_TAB_TITLE }).count()).toBe(1);
      // Not closable: no control inside, Escape does nothing, the button behind cannot be reached.
      expect(await dialog.locator("button, a, form").count()).toBe(0);
      await tabA.keyboard.press("Escape");
      expect(await dialog.isVisible()).toBe(true);
      await expect(tabA.getByRole("button", { name: "同意する" }).click({ timeout: 1000 })).rejects.toThrow();
      // The disabled tab records nothing more, so pressing keys in it does not take the session back.
      await tabA.keyboard.type("abc");

      await tabB.bringToFront();
      await tabB.keyboard.press("Tab");
      await expectUsable(tabB);
      await expect.poll(() => tabB.getByRole("button", { name: "同意する" }).isEnabled()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("disables MFA setup the same way, and guards the TOTP screen", async () => {
    const context = await guardContext();
    try {
      const tabA = await signInTo(context, GUNGNIR, "mfaSetUp", "/mfa/setup");
      await expectUsable(tabA);
      const tabB = await freshTab(context, "/mfa/setup/TOTP");
      expect(await tabB.locator('[data-island="SessionGuard"]').count()).toBe(1);
      await tabB.keyboard.press("Tab");
      await expectDisabled(tabA);
      await expectUsable(tabB);
    } finally {
      await context.close();
    }
  });

  it("disables a second tab opened from this site at once, and the first keeps working", async () => {
    const context = await guardContext();
    try {
      const tabA = await signInTo(context, PARTNER, "extSignIn", `/${PARTNER.serviceId}/consent`);
      const tabB = await tabFromThisSite(context, consentPath);
      await expectDisabled(tabB);
      await tabA.bringToFront();
      await tabA.keyboard.press("Tab");
      await expectUsable(tabA);
      // The disabled tab recorded no marker, so the first one is still the tab in use.
      expect(await tabB.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY)).toBeNull();
      await expectUsable(tabA);
    } finally {
      await context.close();
    }
  });

  it("leaves a page opened from elsewhere usable; the next page of that tab, reached from this site, is disabled", async () => {
    const context = await guardContext();
    try {
      await signInTo(context, PARTNER, "extSignIn", `/${PARTNER.serviceId}/consent`);
      const fresh = await freshTab(context, consentPath);
      const other = await freshTab(context, consentPath);
      await other.keyboard.press("Tab");
      await fresh.keyboard.press("Tab");
      await other.keyboard.press("Tab");
      // No referrer: the product §4 condition does not hold, whatever the markers say.
      await expectUsable(fresh);
      // The same tab goes on within the site: now it was reached from this site, and another tab was used since.
      await navigateWithin(fresh, consentPath);
      expect(new URL((await guardState(fresh)).referrer).origin).toBe(baseUrl);
      await expectDisabled(fresh);
      await expectUsable(other);
    } finally {
      await context.close();
    }
  });

  it("lets a disabled tab be reloaded and used once the other tab is closed", async () => {
    const context = await guardContext();
    try {
      const tabA = await signInTo(context, PARTNER, "extSignIn", `/${PARTNER.serviceId}/consent`);
      const tabB = await freshTab(context, consentPath);
      await tabB.keyboard.press("Tab");
      await expectDisabled(tabA);
      await tabB.close({ runBeforeUnload: true });
      await expect.poll(() => tabA.evaluate((key) => localStorage.getItem(key), MARKER_KEY)).toBeNull();
      await tabA.reload();
      await guardActive(tabA);
      await tabA.keyboard.press("Tab");
      await expectUsable(tabA);
    } finally {
      await context.close();
    }
  });

  it("keeps nothing but one random marker in storage", async () => {
    const context = await guardContext();
    try {
      const page = await signInTo(context, PARTNER, "extSignIn", `/${PARTNER.serviceId}/consent`);
      // What is stored is asked of this page's hydrated guard (signInTo waited for it): before, the sign-in page's
      // marker was still in sessionStorage and the shared one already given up (a loaded CI machine).
      await page.keyboard.press("Tab");
      const stored = await page.evaluate(() => ({ local: { ...localStorage }, session: { ...sessionStorage } }));
      expect(Object.keys(stored.local)).toEqual([MARKER_KEY]);
      expect(Object.keys(stored.session)).toEqual([MARKER_KEY]);
      expect(stored.local[MARKER_KEY]).toBe(stored.session[MARKER_KEY]);
      expect(stored.local[MARKER_KEY]).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await context.close();
    }
  });

  it("is not on a screen without session state, which still loads no script", async () => {
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      const statuses: number[] = [];
      page.on("response", (response) => {
        if (response.request().isNavigationRequest()) statuses.push(response.status());
      });
      expect(await scriptsLoadedBy(page, `${baseUrl}/resetPassword/sendMail?client_id=${GUNGNIR.clientId}`)).toEqual(
        [],
      );
      // The screen itself, not an error page (which loads no script either): its status and its words.
      expect(statuses).toEqual([200]);
      expect(await page.locator("h1").count()).toBe(1);
      expect(await page.textContent("main")).toContain("60分以内");
      expect(await page.locator('[data-island="SessionGuard"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
