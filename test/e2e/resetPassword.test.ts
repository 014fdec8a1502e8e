import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
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
  newContext,
  nowSeconds,
  openApp,
  submit,
  watchSecrets,
} from "./journeys";

// Issue 10, journey 1 in Chromium against the built site and the emulator: forgot password → mail → the
// mailed link → new password → back to the app, then signing in with it; with JavaScript on and off.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const NEW_PASSWORD = "N3w-Passw0rd!";
const GALLERY = "test-results/screens/gungnir-aurora";

const browser = chromiumForFile({ emulator: idp });

const pathOf = (page: Page) => new URL(page.url()).pathname;

/** From the app's sign-in screen to the mail-sent page, by the screens' own links and forms. */
async function askForResetMail(page: Page, app: App, email: string): Promise<void> {
  await page.goto(app.startUrl);
  expect(page.url()).toBe(app.startUrl);
  await Promise.all([
    page.waitForNavigation(),
    page.getByRole("link", { name: "パスワードをお忘れの方はこちら" }).click(),
  ]);
  expect(page.url()).toBe(`${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`);
  await page.locator("#field-email").fill(email);
  await submit(page, "送信する");
  expect(page.url()).toBe(`${baseUrl}/resetPassword/sendMail?client_id=${GUNGNIR.clientId}`);
  expect(await page.textContent("main")).toContain("60分以内");
}

/**
 * Signs in with the password, and the app, as a real OIDC client, exchanges the code it got: the id_token claims a
 * password login (docs/passkeys.md), made during this sign-in (5 s of clock slack).
 */
async function signInWith(page: Page, app: App, email: string, password: string): Promise<void> {
  await page.goto(app.startUrl);
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(password);
  const startedAt = nowSeconds();
  await page.getByRole("button", { name: "ログイン", exact: true }).click();
  await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
}

for (const javaScriptEnabled of [true, false]) {
  describe(`with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("resets a forgotten password by the mailed link, goes back to the app, then signs in with it", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `forgot.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        await idp.seed({ email });
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const page = await context.newPage();
        const secrets = watchSecrets(page);
        await askForResetMail(page, app, email);

        // The help for mail that does not arrive opens without script (a popover).
        await page.getByRole("button", { name: "メールが届かない方はこちら" }).click();
        const help = page.locator("#mailHelp-modal");
        await expect.poll(() => help.isVisible()).toBe(true);
        expect(await help.textContent()).toContain("迷惑メールフォルダ");
        await help.getByRole("button", { name: "閉じる" }).click();
        await expect.poll(() => help.isVisible()).toBe(false);

        const mail = await idp.latest(email);
        const link = new URL(mail.link ?? "");
        expect(`${link.origin}${link.pathname}`).toBe(`${baseUrl}/${GUNGNIR.serviceId}/forgotPassword`);
        await page.goto(link.toString());
        // The link's GET keeps the code in a cookie and leads to its page without it (docs/browsers.md).
        expect(page.url()).toBe(`${baseUrl}/${GUNGNIR.serviceId}/forgotPassword?client_id=${GUNGNIR.clientId}`);
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("パスワードの再設定");
        await page.locator("#field-newPassword").fill(NEW_PASSWORD);
        if (javaScriptEnabled) {
          // The live checklist (SPEC §5) follows what is typed.
          await expect.poll(() => page.locator('.checklist-row[data-met="true"]').count()).toBe(6);
        }
        await submit(page, "変更する");
        const done = page.locator("#message-modal");
        expect(await done.isVisible()).toBe(true);
        expect(await done.textContent()).toContain("パスワードを変更しました");
        // Not closable: the only way on is back to the app.
        expect(await done.getByRole("button", { name: "閉じる" }).count()).toBe(0);
        expect(await page.locator("#field-newPassword").inputValue()).toBe("");
        await expectNothingSecretInPage(page, secrets);
        if (javaScriptEnabled) {
          mkdirSync(GALLERY, { recursive: true });
          await page.screenshot({ path: `${GALLERY}/forgot-password-done.png`, fullPage: true });
        }
        await done.getByRole("link", { name: "アプリに戻る" }).click();
        expect((await app.received).toString()).toBe(`https://app.${GUNGNIR.serviceId}.example/`);

        const again = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const signInPage = await context.newPage();
        await signInWith(signInPage, again, email, NEW_PASSWORD);
      } finally {
        await context.close();
      }
    });

    it("an unknown address gets the same mail-sent page, and no mail", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `nobody.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const page = await context.newPage();
        await askForResetMail(page, app, email);
        expect(await idp.count(email)).toBe(0);
      } finally {
        await context.close();
      }
    });

    it("a link whose code was changed is invalid, and its way on asks for a new mail", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `tampered.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        await idp.seed({ email });
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const page = await context.newPage();
        await askForResetMail(page, app, email);
        const link = new URL((await idp.latest(email)).link ?? "");
        link.searchParams.set("code", link.searchParams.get("code") === "000000" ? "111111" : "000000");
        await page.goto(link.toString());
        await page.locator("#field-newPassword").fill(NEW_PASSWORD);
        await submit(page, "変更する");
        const modal = page.locator("#message-modal");
        expect(await modal.textContent()).toContain("このリンクは無効です");
        await Promise.all([page.waitForNavigation(), modal.getByRole("link", { name: "メールを送信し直す" }).click()]);
        expect(page.url()).toBe(`${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`);
        // The old password still works.
        const later = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        await signInWith(page, later, email, PASSWORD);
      } finally {
        await context.close();
      }
    });
  });
}

describe("the e-mail POST answers at a fixed time", () => {
  it("does not wait for an upstream slower than that: the mail-sent page, and the mail still goes out", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = "slow.upstream@example.com";
      await idp.seed({ email });
      await idp.fault({ pathPattern: "/auth/v1/password/forgot", delayMs: 4000 });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      await askForResetMail(page, app, email);
      await expect.poll(() => idp.count(email), { timeout: 15_000 }).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("shows an upstream failure only when it came in time; a later one leaves the mail-sent page", async () => {
    const context = await newContext(browser(), true);
    try {
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      await idp.fault({ pathPattern: "/auth/v1/password/forgot", status: 503, body: { type: "maintenance" } });
      await page.goto(`${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`);
      await page.locator("#field-email").fill("maintenance.early@example.com");
      await submit(page, "送信する");
      expect(pathOf(page)).toBe("/resetPassword");
      expect(await page.locator("#message-modal").textContent()).toContain("システムメンテナンス中");

      await idp.fault({
        pathPattern: "/auth/v1/password/forgot",
        delayMs: 4000,
        status: 503,
        body: { type: "maintenance" },
      });
      await askForResetMail(page, app, "maintenance.late@example.com");
    } finally {
      await context.close();
    }
  });
});
