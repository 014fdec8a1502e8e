import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { chromiumForFile, siteUrl } from "./browser";
import { emulator, newContext, openApp, submit } from "./journeys";

// Chromium's alone: what only Playwright over CDP can do here. The MFA setup journeys themselves (TOTP from the QR
// code, SMS after the warning, script on and off) run in every engine (engineJourneys.ts); this file keeps
// - request interception: an SMS send held on its way, to prove that nothing sends twice meanwhile;
// - the clipboard: the copy button's text, read back from the system clipboard.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const PHONE = "09012345678";

const browser = chromiumForFile({ emulator: idp });

/** The app opens the site for MFA setup; the user signs in and lands on the choice of factors. */
async function toSetup(context: BrowserContext, email: string): Promise<Page> {
  await idp.seed({ email });
  // A step that cannot happen fails within the test's time, naming itself, instead of waiting forever.
  context.setDefaultTimeout(15_000);
  const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "mfaSetUp");
  const page = await context.newPage();
  await page.goto(app.startUrl);
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(PASSWORD);
  await submit(page, "ログイン");
  expect(new URL(page.url()).pathname).toBe("/mfa/setup");
  return page;
}

describe("with JavaScript on", () => {
  it("sends the SMS once while its send is on its way, however often the warning's button is pressed", async () => {
    const context = await newContext(browser(), true);
    try {
      const page = await toSetup(context, "sms.held@example.com");
      await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "SMSで設定する" }).click()]);
      await page.locator("#field-phoneNumber").fill(PHONE);
      const warning = page.getByRole("dialog", { name: "SMSの送信について" });
      // The warning opens over the page before anything is sent; its button sends, once.
      await page.getByRole("button", { name: "認証コードを送信" }).click();
      await expect.poll(() => warning.isVisible()).toBe(true);
      expect(await idp.count(`+81${PHONE}`)).toBe(0);
      // product §4 one setup request in flight: while the send is on its way (held here), nothing sends again.
      const sends: string[] = [];
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route("**/mfa/setup/SMS/sendCode", async (route) => {
        sends.push(route.request().method());
        await held;
        await route.continue();
      });
      // Raw clicks and keys: Playwright's locators wait for the page while its navigation is pending.
      const box = await warning.getByRole("button", { name: "送信する" }).boundingBox();
      if (!box) throw new Error("the warning's send button has no box");
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.keyboard.press("Enter");
      const sent = page.waitForNavigation();
      release();
      await sent;
      expect(sends).toEqual(["POST"]);
      expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
      expect(await idp.count(`+81${PHONE}`)).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("copies the secret key with the copy button", async () => {
    const context = await newContext(browser(), true);
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
      const page = await toSetup(context, "copy@example.com");
      await Promise.all([
        page.waitForURL("**/mfa/setup/TOTP"),
        page.getByRole("link", { name: "認証アプリで設定する" }).click(),
      ]);
      const secret = (await page.locator("code.secret").textContent()) ?? "";
      await page.getByRole("button", { name: "コピー" }).click();
      await expect.poll(() => page.getByRole("button", { name: "コピーしました" }).isVisible()).toBe(true);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    } finally {
      await context.close();
    }
  });
});
