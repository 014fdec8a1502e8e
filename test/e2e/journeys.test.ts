import { TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { PASSWORD } from "../support/emulatorClient";
import { chromiumForFile, siteUrl } from "./browser";
import {
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

// Issue 4 journeys in Chromium against the built site and the emulator, with JavaScript on and off.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

const browser = chromiumForFile({ emulator: idp });

async function signInForm(page: Page, username: string, password: string) {
  await page.locator("#field-username").fill(username);
  await page.locator("#field-password").fill(password);
  await submit(page, "ログイン");
}

for (const javaScriptEnabled of [true, false]) {
  describe(`with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("a new user signs up with the code from the outbox, and the app receives its code", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "signUp");
        const page = await context.newPage();
        const secrets = watchSecrets(page);
        const email = `new.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
        const startedAt = nowSeconds();
        await page.goto(app.startUrl);
        // No redirect before the form (issue 23): the app's start answers the sign-up screen.
        expect(page.url()).toBe(app.startUrl);
        expect(await page.locator('form[action="/signUp/checkEmail"]').isVisible()).toBe(true);
        await page.locator("#field-email").fill(email);
        await submit(page, "次へ");
        expect(new URL(page.url()).pathname).toBe("/signUp/inputPassword");
        await expectNothingSecretInPage(page, secrets);
        await page.locator("#field-password").fill(PASSWORD);
        await submit(page, "登録する");
        expect(new URL(page.url()).pathname).toBe("/signUp/confirmMail");
        await page.locator("#field-code").fill((await idp.latest(email)).code!);
        await submit(page, "次へ");
        // View signUp continues to MFA setup (SPEC §2); gungnir-aurora allows NONE, so "set up later" hands over to the app.
        expect(new URL(page.url()).pathname).toBe("/mfa/setup");
        await expectNothingSecretInPage(page, secrets);
        await page.getByRole("button", { name: "あとで設定する" }).click();
        // The sign-up signs in with the new password (the mailed code proves the mailbox, not the person).
        await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
      } finally {
        await context.close();
      }
    });

    it("a user without a second factor signs in, and the app receives its code", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        await idp.seed({ email: "plain@example.com" });
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const page = await context.newPage();
        const secrets = watchSecrets(page);
        await page.goto(app.startUrl);
        // No redirect before the form (issue 23): the app's start answers the sign-in screen.
        expect(page.url()).toBe(app.startUrl);
        await expectNothingSecretInPage(page, secrets);
        await page.locator("#field-username").fill("plain@example.com");
        await page.locator("#field-password").fill(PASSWORD);
        const startedAt = nowSeconds();
        await page.getByRole("button", { name: "ログイン", exact: true }).click();
        await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
        expect(secrets.size).toBeGreaterThan(0);
      } finally {
        await context.close();
      }
    });
  });
}

describe("second factors and refusals", () => {
  it("signs in with an authenticator code computed from the seeded secret", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "totp@example.com", mfa: { totp: TOTP_SECRET } });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      const secrets = watchSecrets(page);
      await page.goto(app.startUrl);
      const startedAt = nowSeconds();
      await signInForm(page, "totp@example.com", PASSWORD);
      expect(new URL(page.url()).pathname).toBe("/signIn/mfa");
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("ワンタイムパスワード認証");
      await expectNothingSecretInPage(page, secrets);
      await page.locator("#field-mfaCode").fill(new TOTP({ secret: TOTP_SECRET }).generate());
      await page.getByRole("button", { name: "ログイン", exact: true }).click();
      await expectAppLogin(app, baseUrl, LOGINS.totp, startedAt);
    } finally {
      await context.close();
    }
  });

  it("signs in with an SMS code from the outbox", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "sms@example.com", mfa: { sms: "+8109012345678" } });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      await page.goto(app.startUrl);
      const startedAt = nowSeconds();
      await signInForm(page, "sms@example.com", PASSWORD);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("SMS認証");
      expect(await page.textContent("body")).toContain("3分以内");
      await page.locator("#field-mfaCode").fill((await idp.latest("+8109012345678")).code!);
      await page.getByRole("button", { name: "ログイン", exact: true }).click();
      await expectAppLogin(app, baseUrl, LOGINS.sms, startedAt);
    } finally {
      await context.close();
    }
  });

  it("sets a new password when the account must, then continues", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "force@example.com", forceChangePassword: true });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      await page.goto(app.startUrl);
      const startedAt = nowSeconds();
      await signInForm(page, "force@example.com", PASSWORD);
      expect(new URL(page.url()).pathname).toBe("/changePasswordInForceChangePassword");
      await page.locator("#field-newPassword").fill("N3wPassw0rd!");
      await page.getByRole("button", { name: "変更する", exact: true }).click();
      await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
    } finally {
      await context.close();
    }
  });

  it("says the login ID or password is wrong", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "someone@example.com" });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await signInForm(page, "someone@example.com", "Wr0ngPassword!");
      const body = await page.textContent("body");
      expect(body).toContain("ログインIDまたはパスワードが間違っています");
      expect(await page.locator("#field-username").inputValue()).toBe("someone@example.com");
      expect(await page.locator("#field-password").inputValue()).toBe("");
    } finally {
      await context.close();
    }
  });

  it("says an e-mail already has an account", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "taken@example.com" });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "signUp");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await page.locator("#field-email").fill("taken@example.com");
      await submit(page, "次へ");
      expect(await page.textContent("body")).toContain("既にアカウントをお持ちかもしれません");
    } finally {
      await context.close();
    }
  });

  it.each([
    ["liqueur-lemon", sampleClientIds.lemon, true],
    ["gungnir-aurora", sampleClientIds.gungnir, false],
  ])("refuses a user in system transfer on %s with the right notice", async (serviceId, clientId, mailsReset) => {
    const context = await newContext(browser(), true);
    try {
      const email = `transfer.${serviceId}@example.com`;
      await idp.seed({ email, transferInProgress: true });
      const app = await openApp(context, baseUrl, serviceId, clientId);
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await signInForm(page, email, PASSWORD);
      const body = (await page.textContent("body")) ?? "";
      expect(body).toContain("レモンネット証券");
      expect(await idp.count(email)).toBe(mailsReset ? 1 : 0);
      if (mailsReset) expect((await idp.latest(email)).link).toContain("/liqueur-lemon/initiatePassword?");
    } finally {
      await context.close();
    }
  });
});

describe("consent for the partner service", () => {
  const PARTNER = { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner };

  it("agree: the partner's app receives its code", async () => {
    const context = await newContext(browser(), true);
    try {
      await idp.seed({ email: "partner@example.com" });
      const app = await openApp(context, baseUrl, PARTNER.serviceId, PARTNER.clientId, "extSignIn");
      const page = await context.newPage();
      const secrets = watchSecrets(page);
      await page.goto(app.startUrl);
      const startedAt = nowSeconds();
      await signInForm(page, "partner@example.com", PASSWORD);
      expect(new URL(page.url()).pathname).toBe(`/${PARTNER.serviceId}/consent`);
      const body = (await page.textContent("body")) ?? "";
      expect(body).toContain("カケイボクラウド");
      expect(body).toContain("口座の残高情報");
      await expectNothingSecretInPage(page, secrets);
      await page.getByRole("button", { name: "同意する" }).click();
      // The partner's app asked for openid: its code brings an id_token, with the login behind the consent.
      await expectAppLogin(app, baseUrl, LOGINS.password, startedAt);
    } finally {
      await context.close();
    }
  });

  it("decline: back to the service top", async () => {
    const context = await newContext(browser(), false);
    try {
      await idp.seed({ email: "decline@example.com" });
      const app = await openApp(context, baseUrl, PARTNER.serviceId, PARTNER.clientId, "extSignIn");
      let top: string | undefined;
      await context.route("https://**.example/**", async (route) => {
        top = route.request().url();
        await route.fulfill({ status: 200, contentType: "text/html", body: "<p>top</p>" });
      });
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await signInForm(page, "decline@example.com", PASSWORD);
      await page.getByRole("link", { name: /同意しない/ }).click();
      await expect.poll(() => top).toMatch(/^https:\/\/dev\./);
    } finally {
      await context.close();
    }
  });
});
