import type { BrowserContext, Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { rawBrands } from "../../themes/data/brands";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { chromiumForFile, islandsHydrated, sealedCookie, siteUrl, withCookies } from "./browser";
import { emulator, newContext, openApp, submit } from "./journeys";

// The script-free modals in an engine without the Popover API (Safari < 17, iOS 16 webviews; WPE 2.38
// here), with JavaScript on and off (docs/browsers.md). Chromium 156 cannot switch popover off: its runtime flag is
// gone since it shipped (`--disable-blink-features=HTMLPopoverAttribute` changes nothing). So Chromium meets the pages
// as such an engine does: each page it loads has site.css's `@supports not selector(:popover-open)` branch applying
// (the condition names a pseudo-class Chromium does not know either), and with script the Popover API is missing
// before any of the page's scripts runs. What the engine itself does is checked in WPE 2.38 (docs/browsers.md).

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const support = rawBrands.find((brand) => brand.id === GUNGNIR.serviceId)!.support;
const FALLBACK_CONDITION = "@supports not selector(:popover-open)";

const browser = chromiumForFile({ emulator: idp });

/** A context whose pages are served and scripted as in an engine without the Popover API (see above). */
async function contextWithoutPopover(
  javaScriptEnabled: boolean,
  device: "test" | "new" = "new",
): Promise<BrowserContext> {
  // A new device unless a sign-in needs the test device: a screen's planted state travels as a Cookie header
  // (withCookies), which a cookie in the context's jar would replace.
  const context = await newContext(browser(), javaScriptEnabled, { device });
  // Pages the browser asks for itself (not those it is redirected to: the headless shell routes none of them).
  await context.route("**/*", async (route) => {
    const request = route.request();
    if (request.resourceType() !== "document" || request.method() !== "GET") return route.fallback();
    const response = await route.fetch({ maxRedirects: 0 });
    const html = await response.text();
    if (!html.includes(FALLBACK_CONDITION)) return route.fulfill({ response });
    await route.fulfill({
      response,
      body: html.replace(FALLBACK_CONDITION, "@supports not selector(:x-popover-open)"),
    });
  });
  await context.addInitScript(() => {
    const element = HTMLElement.prototype as Partial<HTMLElement>;
    delete element.showPopover;
    delete element.hidePopover;
    delete element.togglePopover;
    delete element.popover;
  });
  return context;
}

/** The modal is shown and on top: what is at its centre is its own. */
async function expectOnTop(modal: Locator): Promise<void> {
  await expect.poll(() => modal.isVisible()).toBe(true);
  const box = (await modal.boundingBox())!;
  const onTop = await modal.evaluate(
    (dialog, [x, y]) => dialog.contains(document.elementFromPoint(x!, y!)),
    [box.x + box.width / 2, box.y + box.height / 2],
  );
  expect(onTop).toBe(true);
}

async function signInPage(context: BrowserContext): Promise<Page> {
  await withCookies(context, [await sealedCookie("signIn", { loginChallenge: "login-challenge-0001" })]);
  const page = await context.newPage();
  const response = await page.goto(`${baseUrl}/signIn?client_id=${GUNGNIR.clientId}`);
  expect(response?.status()).toBe(200);
  expect(await page.getByRole("heading", { name: "ログイン" }).count()).toBeGreaterThan(0);
  return page;
}

for (const javaScriptEnabled of [true, false]) {
  describe(`without popover, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("opens the support contact on /signIn by its link, shows the brand's contact over the page, and closes", async () => {
      const context = await contextWithoutPopover(javaScriptEnabled);
      try {
        const page = await signInPage(context);
        // The Popover API is gone from the page (the init script runs whether or not the page's own scripts may).
        expect(await page.evaluate(() => typeof HTMLElement.prototype.showPopover)).toBe("undefined");
        // The popover button is out of the page, its link in it: one control, named as before.
        expect(await page.getByRole("button", { name: "お困りの方はこちら" }).count()).toBe(0);
        const opener = page.getByRole("link", { name: "お困りの方はこちら" });
        const modal = page.locator("#support-modal");
        expect(await modal.isVisible()).toBe(false);
        await opener.click();
        await expectOnTop(modal);
        expect(new URL(page.url()).hash).toBe("#support-modal");
        const text = await modal.textContent();
        const contact = [support.callCenterName, support.tel, support.businessHour];
        // Each part is in the brand's data: a missing one would be looked for as the text "undefined".
        expect(contact.every(Boolean), "gungnir-aurora's contact has a name, a number and hours").toBe(true);
        for (const part of contact) expect(text).toContain(part);
        await modal.getByRole("link", { name: "閉じる" }).click();
        await expect.poll(() => modal.isVisible()).toBe(false);
        // Back at the opener, which shows again.
        expect(new URL(page.url()).hash).toBe("#support-modal-opener");
        expect(await opener.isVisible()).toBe(true);
      } finally {
        await context.close();
      }
    });

    it("opens the sign-up back warning by its link, with its Move form, and its cancel closes it", async () => {
      const context = await contextWithoutPopover(javaScriptEnabled);
      try {
        await withCookies(context, [
          await sealedCookie("signUp", { loginChallenge: "challenge", email: "new.user@example.com" }),
          `__Host-service=${GUNGNIR.serviceId}`,
        ]);
        const page = await context.newPage();
        expect((await page.goto(`${baseUrl}/signUp/inputPassword`))?.status()).toBe(200);
        const warning = page.locator("#signUpBackWarning-modal");
        await page.getByRole("link", { name: "メールアドレスの入力に戻る" }).click();
        await expectOnTop(warning);
        expect(await warning.getByRole("button", { name: "移動する" }).isVisible()).toBe(true);
        await warning.getByRole("link", { name: "キャンセル" }).click();
        await expect.poll(() => warning.isVisible()).toBe(false);
      } finally {
        await context.close();
      }
    });
  });
}

describe("without popover, JavaScript on", () => {
  it("posts the SMS setup's number to the warning page, as without script, and sends from there", async () => {
    const context = await contextWithoutPopover(true, "test");
    try {
      const email = "sms.nopopover@example.com";
      const phone = "09012345678";
      await idp.seed({ email });
      context.setDefaultTimeout(15_000);
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "mfaSetUp");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await page.locator("#field-username").fill(email);
      await page.locator("#field-password").fill(PASSWORD);
      await submit(page, "ログイン");
      await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "SMSで設定する" }).click()]);
      expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
      await islandsHydrated(page);
      await page.locator("#field-phoneNumber").fill(phone);
      await submit(page, "認証コードを送信");
      expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS/warning");
      expect(await page.getByRole("heading", { name: "SMSの送信について" }).isVisible()).toBe(true);
      expect(await idp.count(`+81${phone}`)).toBe(0);
      await submit(page, "送信する");
      expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
      expect(await idp.count(`+81${phone}`)).toBe(1);
    } finally {
      await context.close();
    }
  });
});

describe("with popover (Chromium as it is)", () => {
  it("shows the popover buttons and keeps the fallback links out of the page and the accessibility tree", async () => {
    const context = await newContext(browser(), false, { device: "new" });
    try {
      const page = await signInPage(context);
      expect(await page.getByRole("button", { name: "お困りの方はこちら" }).isVisible()).toBe(true);
      expect(await page.getByRole("link", { name: "お困りの方はこちら" }).count()).toBe(0);
      expect(await page.locator('a[href="#support-modal"]').count()).toBe(1);
      await page.goto(`${baseUrl}/signIn?client_id=${GUNGNIR.clientId}#support-modal`);
      expect(await page.locator("#support-modal").isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});
