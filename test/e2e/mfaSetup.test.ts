import jsQR from "jsqr";
import { TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { PASSWORD } from "../support/emulatorClient";
import { chromiumForFile, siteUrl } from "./browser";
import {
  type App,
  emulator,
  expectAppLogin,
  expectNothingSecretInPage,
  LOGINS,
  type Login,
  newContext,
  nowSeconds,
  openApp,
  submit,
  watchSecrets,
} from "./journeys";

// Issue 10 journey 5 in Chromium against the built site and the emulator: TOTP and SMS setup, with JavaScript on
// and off, then the next sign-in asks for the factor just set.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir, displayName: "オーロラ証券" };
const PHONE = "09012345678";

const browser = chromiumForFile({ emulator: idp });

/**
 * The app opens the site for MFA setup; the user signs in and lands on the choice of factors. `startedAt`: the
 * sign-in's time (seconds).
 */
async function toSetup(
  context: BrowserContext,
  email: string,
): Promise<{ page: Page; app: App; secrets: Set<string>; startedAt: number }> {
  await idp.seed({ email });
  // A step that cannot happen fails within the test's time, naming itself, instead of waiting forever.
  context.setDefaultTimeout(15_000);
  const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "mfaSetUp");
  const page = await context.newPage();
  const secrets = watchSecrets(page);
  await page.goto(app.startUrl);
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(PASSWORD);
  const startedAt = nowSeconds();
  await submit(page, "ログイン");
  expect(new URL(page.url()).pathname).toBe("/mfa/setup");
  return { page, app, secrets, startedAt };
}

/**
 * SPEC §4: the 'two-factor set' modal, whose link hands over to the app. The login was the password alone: the
 * factor set up after it claims nothing for it.
 */
async function finish(page: Page, app: App, startedAt: number) {
  const modal = page.getByRole("dialog", { name: "認証が完了しました" });
  await expect.poll(() => modal.isVisible()).toBe(true);
  expect(await modal.textContent()).toContain("2段階認証を設定しました");
  await modal.getByRole("link", { name: "次へ" }).click();
  await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
}

/** A new browser signs in: the login now asks for the second factor just set, and claims it. */
async function signInAgain(email: string, title: string, code: () => Promise<string>, login: Login) {
  const context = await newContext(browser(), true);
  try {
    const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
    const page = await context.newPage();
    await page.goto(app.startUrl);
    await page.locator("#field-username").fill(email);
    await page.locator("#field-password").fill(PASSWORD);
    const startedAt = nowSeconds();
    await submit(page, "ログイン");
    expect(new URL(page.url()).pathname).toBe("/signIn/mfa");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(title);
    await page.locator("#field-mfaCode").fill(await code());
    await page.getByRole("button", { name: "ログイン", exact: true }).click();
    await expectAppLogin(app, baseUrl, login, startedAt);
  } finally {
    await context.close();
  }
}

/** Reads the QR code off a screenshot of the page, as a phone's camera would. */
async function scanQr(page: Page): Promise<string | undefined> {
  const image = PNG.sync.read(await page.locator(".qr svg").screenshot());
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

const otpauth = (email: string, secret: string) => {
  const brand = encodeURIComponent(GUNGNIR.displayName);
  return `otpauth://totp/${brand}:${encodeURIComponent(email)}?secret=${secret}&issuer=${brand}`;
};

for (const javaScriptEnabled of [true, false]) {
  describe(`with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("sets up an authenticator app from the QR code, and the next sign-in asks for its code", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `totp.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        const { page, app, secrets, startedAt } = await toSetup(context, email);
        // The secret arrives late: a browser that runs script sees the spinner until then, any other gets the page whole.
        await idp.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", delayMs: 1500 });
        await Promise.all([
          page.waitForURL("**/mfa/setup/TOTP", { waitUntil: "commit" }),
          page.getByRole("link", { name: "認証アプリで設定する" }).click(),
        ]);
        if (javaScriptEnabled) {
          await expect.poll(() => page.locator("dialog.spinner").isVisible()).toBe(true);
          await expect.poll(() => page.locator(".qr svg").isVisible(), { timeout: 10_000 }).toBe(true);
          expect(await page.locator("dialog.spinner").count()).toBe(0);
        } else {
          await page.waitForLoadState("load");
          expect(await page.locator("dialog.spinner").count()).toBe(0);
          expect(await page.locator(".qr svg").isVisible()).toBe(true);
        }

        const secret = (await page.locator("code.secret").textContent()) ?? "";
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);
        expect(await page.locator("code.secret .secret-group").count()).toBe(8);
        expect(await scanQr(page)).toBe(otpauth(email, secret));
        const copy = page.getByRole("button", { name: "コピー" });
        expect(await copy.count()).toBe(javaScriptEnabled ? 1 : 0);
        await expectNothingSecretInPage(page, secrets);

        await page.locator("#field-mfaOtpCode").fill(new TOTP({ secret }).generate());
        await submit(page, "設定する");
        await finish(page, app, startedAt);
        await signInAgain(email, "ワンタイムパスワード認証", async () => new TOTP({ secret }).generate(), LOGINS.totp);
      } finally {
        await context.close();
      }
    });

    it("sets up SMS after the abroad warning with the code from the outbox, and the next sign-in asks for one", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `sms.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        const { page, app, secrets, startedAt } = await toSetup(context, email);
        await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "SMSで設定する" }).click()]);
        expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
        await page.locator("#field-phoneNumber").fill(PHONE);
        const warning = page.getByRole("dialog", { name: "SMSの送信について" });
        if (javaScriptEnabled) {
          // The warning opens over the page before anything is sent; its button sends, once.
          await page.getByRole("button", { name: "認証コードを送信" }).click();
          await expect.poll(() => warning.isVisible()).toBe(true);
          expect(await idp.count(`+81${PHONE}`)).toBe(0);
          // SPEC §4 one setup request in flight: while the send is on its way (held here), nothing sends again.
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
          const box = (await warning.getByRole("button", { name: "送信する" }).boundingBox())!;
          await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          await page.keyboard.press("Enter");
          const sent = page.waitForNavigation();
          release();
          await sent;
          expect(sends).toEqual(["POST"]);
          expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
        } else {
          // Without script the warning is a page of its own, between the number and the send.
          await submit(page, "認証コードを送信");
          expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS/warning");
          expect(await page.getByRole("heading", { name: "SMSの送信について" }).isVisible()).toBe(true);
          expect(await page.textContent("main")).toContain(PHONE);
          expect(await idp.count(`+81${PHONE}`)).toBe(0);
          await submit(page, "送信する");
          expect(new URL(page.url()).pathname).toBe("/mfa/setup/SMS");
        }
        expect(await idp.count(`+81${PHONE}`)).toBe(1);
        expect(await page.textContent("main")).toContain(`${PHONE} 宛に認証コードを送信しました`);
        await expectNothingSecretInPage(page, secrets);
        await page.locator("#field-mfaOtpCode").fill(await idp.latestCode(`+81${PHONE}`));
        await submit(page, "設定する");
        await finish(page, app, startedAt);
        await signInAgain(email, "SMS認証", () => idp.latestCode(`+81${PHONE}`), LOGINS.sms);
      } finally {
        await context.close();
      }
    });
  });
}

describe("with JavaScript on", () => {
  it("copies the secret key with the copy button", async () => {
    const context = await newContext(browser(), true);
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
      const { page } = await toSetup(context, "copy@example.com");
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
