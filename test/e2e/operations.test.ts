import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { AuthorizationDetails } from "../../forms/authorizationDetails";
import type { AppBrand } from "../support/appStart";
import { asItReads, withoutPhraseBreaks } from "../support/phraseBreaks";
import { GUNGNIR, LEMON, PASSWORD, sampleWithdrawal, TOTP_SECRET } from "../support/vocabulary";
import { chromiumForFile, islandsHydrated, siteUrl } from "./browser";
import { emulator, expectLoginClaims, insecureRequests, LOGINS, newContext, nowSeconds, oidcApp } from "./journeys";
import { newPasskey, seededPasskey, virtualAuthenticator } from "./virtualAuthenticator";

// docs/operations.md: an operation approved by passkey, end to end in Chromium, the one engine here with a platform
// authenticator (the DevTools Protocol's virtual one, virtualAuthenticator.ts), so with script on: the app's server
// (oauth4webapi, an OAuth client nobody here wrote) pushes a withdrawal to the site's /oauth2/par, the browser opens
// the site's entry with client_id and request_uri, the screen shows what is approved, the passkey approves it, and the
// app exchanges its code for tokens that carry the same details. Every engine's screen, with and without script, is an
// engine journey (engineJourneys.ts); the server's rules are proven in workerd (test/worker/operations.test.ts).
// The brand's temporary alternative has one journey too, script on and off: liqueur-lemon's customer types the login
// ID and password, then the TOTP code, each under the same details, and the app's tokens say acr mfa.

const baseUrl = siteUrl().replace("127.0.0.1", "localhost");
const idp = emulator(baseUrl);

const browser = chromiumForFile({ emulator: idp });

/** A brand's app: its origin, where its redirect URI is. */
const appOriginOf = (brand: AppBrand) => `https://app.${brand.serviceId}.example`;
const appOrigin = appOriginOf(GUNGNIR);
const redirectUri = `${appOrigin}/oauth/callback`;

const withdrawal: AuthorizationDetails = sampleWithdrawal();
/** How the screen shows it: the amount and the bank, as pushed. */
const WITHDRAWAL_ROWS = [
  ["出金額", "100,000円"],
  ["出金先", "みずほ銀行 渋谷支店 普通 ****1234"],
];

/**
 * The app's redirect URI as the context sees it: the first request to the app's origin. A redirect there is seen only
 * as a request: Chromium's headless shell routes no redirected request, and fails it as an unknown host.
 */
function appCallback(context: BrowserContext, origin = appOrigin): Promise<URL> {
  return new Promise((resolve) => {
    context.on("request", (request) => {
      if (request.url().startsWith(`${origin}/`)) resolve(new URL(request.url()));
    });
  });
}

/** The rows of the page's details list (dt, dd), as they read. */
async function detailRows(page: Page): Promise<string[][]> {
  const rows = await page
    .locator("dl.operation-details > div")
    .evaluateAll((pairs) =>
      pairs.map((pair) => [pair.querySelector("dt")?.textContent ?? "", pair.querySelector("dd")?.textContent ?? ""]),
    );
  return rows.map((row) => row.map(withoutPhraseBreaks));
}

/**
 * The app's server (oauth4webapi) pushes the withdrawal as `brand`'s client to the site's origin (the narrow proxy
 * passes /oauth2/par): what it keeps for its code exchange, and the entry the browser opens (client and request_uri).
 */
async function pushWithdrawal(brand: AppBrand, redirectUri: string) {
  const { as, client } = await oidcApp(baseUrl, brand.clientId);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const pushedResponse = await oauth.pushedAuthorizationRequest(
    as,
    client,
    oauth.None(),
    {
      response_type: "code",
      redirect_uri: redirectUri,
      scope: "openid",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      authorization_details: JSON.stringify(withdrawal),
    },
    insecureRequests,
  );
  const { request_uri } = await oauth.processPushedAuthorizationResponse(as, client, pushedResponse);
  const entry = `${baseUrl}/${brand.serviceId}/auth?${new URLSearchParams({ client_id: client.client_id, request_uri })}`;
  /** The code back at the app's redirect URI, exchanged with the push's state and PKCE verifier. */
  const exchange = async (callback: URL) => {
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      codeVerifier,
      insecureRequests,
    );
    return oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
  };
  return { as, state, entry, exchange };
}

/** The account hears of the approval, with the amount. */
async function expectApprovalNotice(email: string): Promise<void> {
  const notice = await idp.latest(email);
  expect(notice.subject).toContain("出金のお手続きを承認しました");
  expect(notice.text).toContain("出金額: 100,000円");
}

describe("an operation approved by passkey in Chromium (docs/operations.md)", () => {
  it("the app's server pushes a ¥100,000 withdrawal; the screen shows it; the passkey approves it; the tokens carry it, phr, no refresh token", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = `operation.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const passkey = await newPasskey();
      await idp.seed({ email, passkey: seededPasskey(passkey) });

      // The app's server pushes the withdrawal to the site's origin (the narrow proxy passes /oauth2/par).
      const { as, entry, exchange } = await pushWithdrawal(GUNGNIR, redirectUri);
      expect(as.pushed_authorization_request_endpoint).toBe(`${baseUrl}/oauth2/par`);

      // The browser opens the site's entry with the client and the request_uri, nothing else.
      const page = await virtualAuthenticator(context, new URL(baseUrl).hostname, passkey);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const received = appCallback(context);
      const startedAt = nowSeconds();
      const shown = await page.goto(entry);
      expect(shown?.status()).toBe(200);
      expect(page.url()).toBe(entry);

      // What is approved: the heading, the amount and the bank, as pushed; no password field.
      expect(await page.getByRole("heading", { level: 1, name: asItReads("出金のご確認") }).isVisible()).toBe(true);
      expect(await detailRows(page)).toEqual(WITHDRAWAL_ROWS);
      expect(await page.locator("input[type=password]").count()).toBe(0);

      // The passkey approves it: the app's redirect URI gets a code, with its state.
      await islandsHydrated(page);
      await page.getByRole("button", { name: asItReads("パスキーで承認する") }).click();
      const callback = await received;
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

      // The app's server exchanges it: the same details, a passkey login (acr phr) made just now, no refresh token.
      const tokens = await exchange(callback);
      expect(tokens.authorization_details).toEqual(withdrawal);
      expect(tokens.refresh_token).toBeUndefined();
      expectLoginClaims(oauth.getValidatedIdTokenClaims(tokens), LOGINS.passkey, startedAt);
      await expectApprovalNotice(email);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

// docs/operations.md "The temporary alternative": liqueur-lemon lets a customer without a passkey approve with the
// password and the second factor's code, each typed under the same details; with script and without, as the forms
// are plain POSTs. The server's rules (wrong codes, limits, SMS, a new device) are proven in workerd.
describe("an operation approved by password and TOTP code in Chromium, the brand's temporary alternative", () => {
  const lemonOrigin = appOriginOf(LEMON);
  const lemonRedirectUri = `${lemonOrigin}/oauth/callback`;

  for (const javaScriptEnabled of [true, false]) {
    it(`the app's server pushes a ¥100,000 withdrawal; the password, then the TOTP code approve it under the same details; the tokens carry it, mfa, no refresh token; JavaScript ${javaScriptEnabled ? "on" : "off"}`, async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const email = `alternative.${crypto.randomUUID().slice(0, 8)}@example.com`;
        await idp.seed({ email, mfa: { totp: TOTP_SECRET } });

        // The app's server pushes the withdrawal, as liqueur-lemon's client.
        const { as, state, entry, exchange } = await pushWithdrawal(LEMON, lemonRedirectUri);

        // Every address the context asks for or shows, and every post of the alternative's forms.
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        const addresses: string[] = [];
        const posts: { path: string; method: string; fields: string[] }[] = [];
        context.on("request", (request) => {
          addresses.push(request.url());
          const url = new URL(request.url());
          if (url.origin === baseUrl && ["/operation/password", "/operation/code"].includes(url.pathname))
            posts.push({
              path: url.pathname,
              method: request.method(),
              fields: [...new URLSearchParams(request.postData() ?? "").keys()].sort(),
            });
        });
        page.on("framenavigated", (frame) => addresses.push(frame.url()));
        const received = appCallback(context, lemonOrigin);
        /** The site's answer to the form sent to `path`: an accepted step is a 303, a refused one says why. */
        const answer = (path: string) =>
          page.waitForResponse((response) => response.url().startsWith(`${baseUrl}${path}`));
        /** No address the context asked for or showed holds a value the customer typed: the forms post them. */
        const expectTypedNowhereInAddresses = (typed: string[]) => {
          expect(addresses.length).toBeGreaterThan(0);
          for (const address of addresses)
            for (const value of typed) {
              expect(address, "a typed value in an address").not.toContain(value);
              expect(decodeURIComponent(address), "a typed value in an address").not.toContain(value);
            }
        };

        const startedAt = nowSeconds();
        expect((await page.goto(entry))?.status()).toBe(200);
        if (javaScriptEnabled) await islandsHydrated(page);

        // What is approved, and the alternative's section under it: the login ID and the password.
        expect(await page.getByRole("heading", { level: 1, name: asItReads("出金のご確認") }).isVisible()).toBe(true);
        expect(await detailRows(page)).toEqual(WITHDRAWAL_ROWS);
        const alternative = page.getByRole("region", { name: asItReads("パスワードと認証コードで承認する") });
        expect(await alternative.isVisible()).toBe(true);
        await alternative.getByLabel(asItReads("メールアドレスまたはログインID")).click();
        await page.keyboard.type(email);
        await alternative.getByLabel(asItReads("パスワード")).click();
        await page.keyboard.type(PASSWORD);
        const [passwordAnswer] = await Promise.all([
          answer("/operation/password"),
          alternative.getByRole("button", { name: asItReads("次へ") }).click(),
        ]);
        expectTypedNowhereInAddresses([email, PASSWORD]);
        expect(passwordAnswer.request().method()).toBe("POST");
        expect(passwordAnswer.status()).toBe(303);
        await page.waitForURL(`${baseUrl}/operation`);

        // The code, under the same details; the password is not asked again.
        expect(await page.getByRole("heading", { level: 1, name: asItReads("出金のご確認") }).isVisible()).toBe(true);
        expect(await detailRows(page)).toEqual(WITHDRAWAL_ROWS);
        expect(await page.locator("input[type=password]").count()).toBe(0);
        const codeField = page.getByLabel(asItReads("認証コード"));
        expect(await codeField.isVisible()).toBe(true);
        // The details list comes before the code field in the page, as it reads.
        expect(
          await page.evaluate(() => {
            const list = document.querySelector("dl.operation-details");
            const field = document.querySelector("#field-mfaCode");
            return Boolean(list && field && list.compareDocumentPosition(field) & Node.DOCUMENT_POSITION_FOLLOWING);
          }),
        ).toBe(true);
        const code = new TOTP({ secret: TOTP_SECRET }).generate();
        await codeField.click();
        await page.keyboard.type(code);
        const [codeAnswer] = await Promise.all([
          answer("/operation/code"),
          page.getByRole("button", { name: asItReads("承認する") }).click(),
        ]);
        expectTypedNowhereInAddresses([code]);
        expect(codeAnswer.request().method()).toBe("POST");
        expect(codeAnswer.status()).toBe(303);

        // The app's redirect URI gets a code, with its state.
        const callback = await received;
        expect(`${callback.origin}${callback.pathname}`).toBe(lemonRedirectUri);
        expect(callback.searchParams.get("state")).toBe(state);

        // The forms posted what was typed, and no address held it up to the app's.
        expect(posts).toEqual([
          { path: "/operation/password", method: "POST", fields: ["client_id", "operation", "password", "username"] },
          { path: "/operation/code", method: "POST", fields: ["client_id", "mfaCode", "operation"] },
        ]);
        expectTypedNowhereInAddresses([email, PASSWORD, code]);

        // The app's server exchanges it: the same details, a password and TOTP login (acr mfa) made just now, no
        // refresh token; the access token, verified with the site's keys, says so too.
        const tokens = await exchange(callback);
        expect(tokens.authorization_details).toEqual(withdrawal);
        expect(tokens.refresh_token).toBeUndefined();
        expectLoginClaims(oauth.getValidatedIdTokenClaims(tokens), LOGINS.totp, startedAt);
        const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri ?? "")), {
          issuer: as.issuer,
        });
        expect(payload).toMatchObject({ acr: "mfa", amr: ["pwd", "otp", "mfa"], authorization_details: withdrawal });
        await expectApprovalNotice(email);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
