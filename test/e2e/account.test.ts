import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import type { View } from "../../worker/session/authRequest";
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

// Issue 10, journeys 2, 3 and 4 in Chromium against the built site and the emulator, reached the real way (the
// app starts with the view, the user signs in), with the codes and links from the outbox, JavaScript on and off.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const SERVICE_TOP = "https://dev.aurora-sec.example/";
const NEW_PASSWORD = "N3w-Passw0rd!";

const browser = chromiumForFile({ emulator: idp });

const path = (page: Page) => new URL(page.url()).pathname;

/**
 * The app opens the site for `view` and the user signs in; answers the app, the page on the view's screen and when
 * the sign-in started (seconds).
 */
async function signIn(
  context: BrowserContext,
  view: View,
  email: string,
): Promise<{ app: App; page: Page; startedAt: number }> {
  const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, view);
  const page = await context.newPage();
  await page.goto(app.startUrl);
  // No redirect before the form (issue 23): the app's start answers the sign-in screen.
  expect(page.url()).toBe(app.startUrl);
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(PASSWORD);
  const startedAt = nowSeconds();
  await submit(page, "ログイン");
  return { app, page, startedAt };
}

/** The modal the server opened on this page. */
const openModal = (page: Page) => page.locator("dialog#message-modal[open]");

for (const javaScriptEnabled of [true, false]) {
  describe(`account journeys with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("changes the password from view passwordChange, then signs in with the new one", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `pw.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        await idp.seed({ email });
        const { page } = await signIn(context, "passwordChange", email);
        const secrets = watchSecrets(page);
        expect(path(page)).toBe("/changePassword");
        await page.locator("#field-currentPassword").fill("Wr0ng-Passw0rd!");
        await page.locator("#field-newPassword").fill(NEW_PASSWORD);
        await submit(page, "変更する");
        expect(await page.textContent("body")).toContain("正しいパスワードを入力してください");
        expect(await page.locator("#field-currentPassword").inputValue()).toBe("");

        await page.locator("#field-currentPassword").fill(PASSWORD);
        await page.locator("#field-newPassword").fill(NEW_PASSWORD);
        await submit(page, "変更する");
        const modal = openModal(page);
        expect(await modal.getByRole("heading").textContent()).toBe("パスワードを変更しました");
        expect(await modal.getByRole("button", { name: "閉じる" }).count()).toBe(0);
        expect(await modal.getByRole("link", { name: "サービスのトップへ戻る" }).getAttribute("href")).toBe(
          SERVICE_TOP,
        );
        await expectNothingSecretInPage(page, secrets);

        const again = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "signIn");
        await page.goto(again.startUrl);
        await page.locator("#field-username").fill(email);
        await page.locator("#field-password").fill(NEW_PASSWORD);
        const startedAt = nowSeconds();
        await page.getByRole("button", { name: "ログイン", exact: true }).click();
        await expectAppLogin(again, baseUrl, LOGINS.password, startedAt);
      } finally {
        await context.close();
      }
    });

    it("changes the e-mail from view emailChange, through the links mailed to the old and the new address", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const suffix = javaScriptEnabled ? "js" : "nojs";
        const oldEmail = `old.${suffix}@example.com`;
        const newEmail = `new.${suffix}@example.com`;
        await idp.seed({ email: oldEmail });
        const { page } = await signIn(context, "emailChange", oldEmail);
        expect(path(page)).toBe("/changeEmail");
        await page.locator("#field-newEmail").fill(newEmail);
        await submit(page, "メールを送信");
        const modal = openModal(page);
        expect(await modal.getByRole("heading").textContent()).toBe("確認メールを送信しました");
        expect(await idp.count(newEmail)).toBe(0);

        await page.goto((await idp.latest(oldEmail)).link!);
        expect(path(page)).toBe(`/${GUNGNIR.serviceId}/changeEmail`);
        expect(new URL(page.url()).searchParams.get("result")).toBe("sent_to_new_email");
        let body = (await page.textContent("body")) ?? "";
        expect(body).toContain("メールアドレスの変更は完了していません");
        expect(await page.getByRole("link", { name: "サービスのトップへ戻る" }).count()).toBe(0);

        await page.goto((await idp.latest(newEmail)).link!);
        expect(new URL(page.url()).searchParams.get("result")).toBe("completed");
        body = (await page.textContent("body")) ?? "";
        expect(body).toContain("メールアドレスの変更が完了しました");
        expect(await page.getByRole("link", { name: "サービスのトップへ戻る" }).getAttribute("href")).toBe(SERVICE_TOP);
      } finally {
        await context.close();
      }
    });

    it("registers an e-mail after a sign-in with an unverified address, then sets up MFA and hands over to the app", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const suffix = javaScriptEnabled ? "js" : "nojs";
        const email = `unverified.${suffix}@example.com`;
        const fresh = `registered.${suffix}@example.com`;
        await idp.seed({ email, emailVerified: false });
        const { app, page, startedAt } = await signIn(context, "signIn", email);
        const secrets = watchSecrets(page);
        expect(path(page)).toBe("/registerEmail");
        expect(await page.textContent("body")).toContain("確認コードの有効期限は1時間です。");

        await page.locator("#field-email").fill(fresh);
        await submit(page, "確認コードを送信");
        expect(path(page)).toBe("/registerEmail");
        expect(page.url()).not.toContain(encodeURIComponent(fresh));
        expect(await page.textContent("body")).toContain(`${fresh} 宛に6桁の確認コードを送信しました。`);

        await page.locator("#field-code").fill(await idp.latestCode(fresh));
        await submit(page, "次へ");
        const modal = openModal(page);
        expect(await modal.getByRole("heading").textContent()).toBe("確認コードを確認しました");
        await expectNothingSecretInPage(page, secrets);
        await Promise.all([page.waitForNavigation(), modal.getByRole("link", { name: "次へ進む" }).click()]);
        // /callback marked that MFA setup follows (SPEC §2); this brand allows NONE, so "later" hands over to the app.
        expect(path(page)).toBe("/mfa/setup");
        await page.getByRole("button", { name: "あとで設定する" }).click();
        await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
      } finally {
        await context.close();
      }
    });
  });
}
