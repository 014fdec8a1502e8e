import { TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { asItReads } from "../support/phraseBreaks";
import { GUNGNIR, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { chromiumForFile, islandsHydrated, siteUrl } from "./browser";
import { emulator, expectAppLogin, LOGINS, newContext, nowSeconds, openApp, submit } from "./journeys";
import {
  newPasskey,
  type Passkey,
  seededPasskey,
  virtualAuthenticator as withAuthenticator,
} from "./virtualAuthenticator";

// docs/passkeys.md: a passkey sign-in in Chromium, with the DevTools Protocol's virtual authenticator (a
// platform authenticator that verifies its user; virtualAuthenticator.ts). The site is opened as `localhost`: an RP ID
// is a host name, never an IP address. The passkey's key is made here and given both to the virtual authenticator
// and to the emulator, as the enrolment screen would have done.

const baseUrl = siteUrl().replace("127.0.0.1", "localhost");
const idp = emulator(baseUrl);

const browser = chromiumForFile({ emulator: idp });

/** Chromium's virtual platform authenticator for the site's host (holding the passkey, if given). */
const virtualAuthenticator = (context: BrowserContext, passkey?: Passkey, signCount = 0) =>
  withAuthenticator(context, new URL(baseUrl).hostname, passkey, signCount);

/** The app's code exchanged by a real OIDC client; the id_token's claims must say a passkey login, just now. */
async function expectPhishingResistantLogin(app: Awaited<ReturnType<typeof openApp>>, startedAt: number) {
  await expectAppLogin(app, baseUrl, LOGINS.passkey, startedAt);
}

/**
 * A user with a passkey, at the app's sign-in in a browser whose virtual authenticator holds it. `clonedAt`: the
 * account has seen the passkey's counter at that value already, and this authenticator starts below it (a clone).
 */
async function atSignInWithPasskey(context: BrowserContext, script?: () => void, clonedAt?: number) {
  const email = `passkey.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const passkey = await newPasskey();
  await idp.seed({
    email,
    passkey: { ...seededPasskey(passkey), ...(clonedAt ? { counter: clonedAt } : {}) },
  });
  if (script) await context.addInitScript(script);
  const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
  const page = await virtualAuthenticator(context, passkey);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const startedAt = nowSeconds();
  await page.goto(app.startUrl);
  expect(page.url()).toBe(app.startUrl);
  return { app, page, errors, startedAt };
}

/** Presses 「パスキーでログイン」 (closing the last refusal's modal first) and answers the assertion POST's status. */
async function clickPasskey(page: Page): Promise<number> {
  const close = page.getByRole("button", { name: "閉じる" });
  if (await close.isVisible()) await close.click();
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === "/signIn/passkey" && r.request().method() === "POST"),
    page.getByRole("button", { name: "パスキーでログイン" }).click(),
  ]);
  await page.waitForLoadState();
  await islandsHydrated(page);
  return response.status();
}

/**
 * After the app received its code: the tab's navigation to the app fails (no such host; only the request is seen),
 * and the next page may be opened once that error page is there.
 */
async function appPageFailed(page: Page): Promise<void> {
  await expect.poll(() => page.url()).toMatch(/^chrome-error:/);
}

/** No passkey autofill (conditional mediation): the button is the way, and nothing signs in by itself. */
const noAutofill = () => {
  // Not on every page: an error page has no WebAuthn.
  if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
};

describe("passkey sign-in in Chromium (docs/passkeys.md)", () => {
  it("signs in with the button and the passkey alone: no login ID, no password, no code", async () => {
    const context = await newContext(browser(), true);
    try {
      // A browser without passkey autofill (conditional mediation): the button is the way.
      const { app, page, errors, startedAt } = await atSignInWithPasskey(context, noAutofill);
      await islandsHydrated(page);
      expect(await page.locator("#field-username").getAttribute("autocomplete")).toBe("username");
      await page.getByRole("button", { name: "パスキーでログイン" }).click();
      await expectPhishingResistantLogin(app, startedAt);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("signs in through the login ID field's autofill (conditional mediation), without a click", async () => {
    const context = await newContext(browser(), true);
    try {
      // Chromium's virtual authenticator answers a conditional request by itself (automatic presence): as a user
      // picking the passkey the field offers.
      const { app, errors, startedAt } = await atSignInWithPasskey(context);
      await expectPhishingResistantLogin(app, startedAt);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows no passkey option where the browser or webview has no WebAuthn", async () => {
    const context = await newContext(browser(), true);
    try {
      await context.addInitScript(() => {
        Reflect.deleteProperty(window, "PublicKeyCredential");
      });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      // A platform authenticator is there, as in the tests above that show the button: only the API is missing.
      const page = await virtualAuthenticator(context);
      // An island that throws is caught by its root and reported to /report/island (islands/client.tsx), not as a
      // page error: both are watched.
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === "/report/island") errors.push(request.postData() ?? "a crash report");
      });
      await page.goto(app.startUrl);
      await islandsHydrated(page);
      expect(await page.locator("#field-password").isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "パスキーでログイン" }).count()).toBe(0);
      expect(await page.locator("#field-username").getAttribute("autocomplete")).toBe("username");
      // A request the page makes after hydration: a report its islands sent earlier has been seen by then.
      await Promise.all([
        page.waitForResponse((response) => new URL(response.url()).pathname === "/health"),
        page.evaluate(() => fetch("/health").then((response) => response.text())),
      ]);
      // Hidden because the island saw no WebAuthn, not because it failed.
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("passkey first: the second-factor step in Chromium (docs/passkeys.md, 'Passkey first')", () => {
  /** The step's recommended choice, once the island has seen the platform authenticator; pressed. */
  async function choosePasskey(page: Page) {
    await islandsHydrated(page);
    const offer = page.getByRole("button", { name: asItReads("パスキーを作成する（おすすめ）") });
    // Its reason is the button's description, read with it.
    await expect
      .poll(() => offer.getAttribute("aria-describedby").then((id) => page.locator(`[id="${id}"]`).textContent()))
      .toContain("フィッシング");
    await Promise.all([page.waitForNavigation(), offer.click()]);
  }

  /** The browser makes the passkey; the 'registered' modal's link goes on to the app. */
  async function createAndGoOn(page: Page) {
    await islandsHydrated(page);
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/mfa/setup/passkey" && !url.search),
      page.getByRole("button", { name: "パスキーを作成する", exact: true }).click(),
    ]);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: asItReads("パスキーを登録しました") }).waitFor();
    await dialog.getByRole("link", { name: "次へ" }).click();
  }

  it("a new customer signs up, makes a passkey with no second code, reaches the app, then signs in with it alone", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = `first.${crypto.randomUUID().slice(0, 8)}@example.com`;
      await context.addInitScript(noAutofill);
      const page = await virtualAuthenticator(context);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));

      const signUp = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "signUp");
      const signedUpAt = nowSeconds();
      await page.goto(signUp.startUrl);
      await page.locator("#field-email").fill(email);
      await submit(page, "次へ");
      await page.locator("#field-password").fill(PASSWORD);
      await submit(page, "登録する");
      await page.locator("#field-code").fill(await idp.latestCode(email));
      await submit(page, "次へ");
      expect(new URL(page.url()).pathname).toBe("/mfa/setup");
      const codeMail = await idp.latest(email);
      await choosePasskey(page);
      // The sign-up's code proved the mailbox: the ceremony is ready, no code asked or mailed.
      expect(await page.locator("#field-code").count()).toBe(0);
      await createAndGoOn(page);
      await expectAppLogin(signUp, baseUrl, LOGINS.password, signedUpAt);
      await appPageFailed(page);
      const mails = [codeMail.subject, (await idp.latest(email)).subject];
      expect(mails[1]).toContain("パスキーが登録されました");
      expect(mails[0]).not.toContain("パスキー");

      // Signed out; the app's next sign-in offers the passkey, which signs in alone.
      const out = await context.request.get(`${baseUrl}/logout?client_id=${GUNGNIR.clientId}`, { maxRedirects: 0 });
      expect(out.status()).toBe(303);
      const next = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      const startedAt = nowSeconds();
      await page.goto(next.startUrl);
      await islandsHydrated(page);
      await page.getByRole("button", { name: "パスキーでログイン" }).click();
      await expectPhishingResistantLogin(next, startedAt);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("the own view mfaSetUp after a password sign-in: the passkey with a code mailed to the account", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = `setup.${crypto.randomUUID().slice(0, 8)}@example.com`;
      await idp.seed({ email });
      await context.addInitScript(noAutofill);
      const page = await virtualAuthenticator(context);
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "mfaSetUp");
      await page.goto(app.startUrl);
      await page.locator("#field-username").fill(email);
      await page.locator("#field-password").fill(PASSWORD);
      await submit(page, "ログイン");
      expect(new URL(page.url()).pathname).toBe("/mfa/setup");
      await choosePasskey(page);
      await page.locator("#field-code").fill(await idp.latestCode(email));
      await submit(page, "次へ");
      await createAndGoOn(page);
      await expect.poll(async () => (await idp.latest(email)).subject).toContain("パスキーが登録されました");
      expect((await app.received).searchParams.get("code")).toMatch(/.{16,}/);
    } finally {
      await context.close();
    }
  });
});

describe("a passkey from enrolment to deletion in Chromium (docs/passkeys.md)", () => {
  it("a new user signs in with password and TOTP, registers a passkey, signs out, and signs in with it alone", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = `enrol.${crypto.randomUUID().slice(0, 8)}@example.com`;
      await idp.seed({ email, mfa: { totp: TOTP_SECRET } });
      await context.addInitScript(noAutofill);
      const page = await virtualAuthenticator(context);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));

      // Password and TOTP; the browser can make a passkey, so the enrolment comes before the app.
      const first = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      const firstAt = nowSeconds();
      await page.goto(first.startUrl);
      await islandsHydrated(page);
      await page.getByRole("button", { name: "パスキーでログイン" }).waitFor();
      await page.locator("#field-username").fill(email);
      await page.locator("#field-password").fill(PASSWORD);
      await submit(page, "ログイン");
      await page.locator("#field-mfaCode").fill(new TOTP({ secret: TOTP_SECRET }).generate());
      await submit(page, "ログイン");
      expect(new URL(page.url()).pathname).toBe("/signIn/passkey/enrol");
      await submit(page, "パスキーを登録する");
      await page.locator("#field-code").fill(await idp.latestCode(email));
      await submit(page, "次へ");
      await islandsHydrated(page);
      await page.getByRole("button", { name: "パスキーを作成する" }).click();
      // The password and TOTP login claims what it achieved, never phr; the enrolment added nothing to it.
      await expectAppLogin(first, baseUrl, LOGINS.totp, firstAt);
      await appPageFailed(page);
      expect((await idp.latest(email)).subject).toContain("パスキーが登録されました");

      // Signed out; then the app's next sign-in takes the passkey alone.
      const out = await context.request.get(`${baseUrl}/logout?client_id=${GUNGNIR.clientId}`, { maxRedirects: 0 });
      expect(out.status()).toBe(303);
      const second = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      const startedAt = nowSeconds();
      await page.goto(second.startUrl);
      await islandsHydrated(page);
      await page.getByRole("button", { name: "パスキーでログイン" }).click();
      await expectPhishingResistantLogin(second, startedAt);
      await appPageFailed(page);

      // Step-up: the app asks for a fresh phishing-resistant login; the page has no password form, only the passkey.
      const stepUp = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn", {
        acr_values: "phr",
        prompt: "login",
      });
      const stepUpAt = nowSeconds();
      await page.goto(stepUp.startUrl);
      await islandsHydrated(page);
      expect(await page.locator("#field-password").count()).toBe(0);
      await page.getByRole("button", { name: "パスキーでログイン" }).click();
      await expectPhishingResistantLogin(stepUp, stepUpAt);
      await appPageFailed(page);

      // The passkey in /passkeys (a fresh sign-in: the passkey), deleted; the account hears of it.
      const manage = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "passkeys");
      await page.goto(manage.startUrl);
      await islandsHydrated(page);
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/passkeys"),
        page.getByRole("button", { name: "パスキーでログイン" }).click(),
      ]);
      await expect.poll(() => page.locator(".passkey").count()).toBe(1);
      await submit(page, "削除する");
      // Back on the list, which is empty: not an empty count on some other page.
      expect(new URL(page.url()).pathname).toBe("/passkeys");
      expect(await page.getByRole("heading", { name: asItReads("パスキーの管理") }).isVisible()).toBe(true);
      expect(await page.locator(".passkey").count()).toBe(0);
      expect((await idp.latest(email)).subject).toContain("パスキーが削除されました");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refuses a cloned authenticator, and answers a flood of assertions for that passkey with 429", async () => {
    const context = await newContext(browser(), true);
    try {
      // The account saw this passkey's counter at 50: an authenticator that signs with 1 is a copy.
      const { page } = await atSignInWithPasskey(context, noAutofill, 50);
      await islandsHydrated(page);
      expect(await clickPasskey(page)).toBe(403);
      expect(await page.getByRole("heading", { name: asItReads("このパスキーは使用できません") }).isVisible()).toBe(
        true,
      );
      expect(await page.locator("#field-password").isVisible()).toBe(true);
      // Tried again and again (a new sign-in after every fifth refusal, which ends the login challenge): the credential
      // class stops the passkey after its limit of answered tries, 5 a minute (10 when the tries straddle a window).
      const statuses = [403];
      while (statuses.at(-1) !== 429 && statuses.length <= 11) {
        if (statuses.length % 5 === 0) {
          const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
          await page.goto(app.startUrl);
          await islandsHydrated(page);
        }
        statuses.push(await clickPasskey(page));
      }
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.length).toBeGreaterThan(5);
      expect(statuses.slice(0, -1).every((status) => status === 403)).toBe(true);
      expect(await page.getByRole("heading", { name: asItReads("試行回数の上限に達しました") }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
