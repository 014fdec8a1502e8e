import * as oauth from "oauth4webapi";
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { AuthorizationDetails } from "../../forms/authorizationDetails";
import { asItReads, withoutPhraseBreaks } from "../support/phraseBreaks";
import { GUNGNIR, sampleWithdrawal } from "../support/vocabulary";
import { chromiumForFile, islandsHydrated, siteUrl } from "./browser";
import { emulator, expectLoginClaims, insecureRequests, LOGINS, newContext, nowSeconds, oidcApp } from "./journeys";
import { newPasskey, seededPasskey, virtualAuthenticator } from "./virtualAuthenticator";

// docs/operations.md: an operation approved by passkey, end to end in Chromium, the one engine here with a platform
// authenticator (the DevTools Protocol's virtual one, virtualAuthenticator.ts), so with script on: the app's server
// (oauth4webapi, an OAuth client nobody here wrote) pushes a withdrawal to the site's /oauth2/par, the browser opens
// the site's entry with client_id and request_uri, the screen shows what is approved, the passkey approves it, and the
// app exchanges its code for tokens that carry the same details. Every engine's screen, with and without script, is an
// engine journey (engineJourneys.ts); the server's rules are proven in workerd (test/worker/operations.test.ts).

const baseUrl = siteUrl().replace("127.0.0.1", "localhost");
const idp = emulator(baseUrl);

const browser = chromiumForFile({ emulator: idp });

const appOrigin = `https://app.${GUNGNIR.serviceId}.example`;
const redirectUri = `${appOrigin}/oauth/callback`;

const withdrawal: AuthorizationDetails = sampleWithdrawal();

/**
 * The app's redirect URI as the context sees it: the first request to the app's origin. A redirect there is seen only
 * as a request: Chromium's headless shell routes no redirected request, and fails it as an unknown host.
 */
function appCallback(context: BrowserContext): Promise<URL> {
  return new Promise((resolve) => {
    context.on("request", (request) => {
      if (request.url().startsWith(`${appOrigin}/`)) resolve(new URL(request.url()));
    });
  });
}

describe("an operation approved by passkey in Chromium (docs/operations.md)", () => {
  it("the app's server pushes a ¥100,000 withdrawal; the screen shows it; the passkey approves it; the tokens carry it, phr, no refresh token", async () => {
    const context = await newContext(browser(), true);
    try {
      const email = `operation.${crypto.randomUUID().slice(0, 8)}@example.com`;
      const passkey = await newPasskey();
      await idp.seed({ email, passkey: seededPasskey(passkey) });

      // The app's server pushes the withdrawal to the site's origin (the narrow proxy passes /oauth2/par).
      const { as, client } = await oidcApp(baseUrl, GUNGNIR.clientId);
      expect(as.pushed_authorization_request_endpoint).toBe(`${baseUrl}/oauth2/par`);
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

      // The browser opens the site's entry with the client and the request_uri, nothing else.
      const page = await virtualAuthenticator(context, new URL(baseUrl).hostname, passkey);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const received = appCallback(context);
      const entry = `${baseUrl}/${GUNGNIR.serviceId}/auth?${new URLSearchParams({ client_id: client.client_id, request_uri })}`;
      const startedAt = nowSeconds();
      const shown = await page.goto(entry);
      expect(shown?.status()).toBe(200);
      expect(page.url()).toBe(entry);

      // What is approved: the heading, the amount and the bank, as pushed; no password field.
      expect(await page.getByRole("heading", { level: 1, name: asItReads("出金のご確認") }).isVisible()).toBe(true);
      const rows = await page
        .locator("dl.operation-details > div")
        .evaluateAll((pairs) =>
          pairs.map((pair) => [
            pair.querySelector("dt")?.textContent ?? "",
            pair.querySelector("dd")?.textContent ?? "",
          ]),
        );
      expect(rows.map((row) => row.map(withoutPhraseBreaks))).toEqual([
        ["出金額", "100,000円"],
        ["出金先", "みずほ銀行 渋谷支店 普通 ****1234"],
      ]);
      expect(await page.locator("input[type=password]").count()).toBe(0);

      // The passkey approves it: the app's redirect URI gets a code, with its state.
      await islandsHydrated(page);
      await page.getByRole("button", { name: asItReads("パスキーで承認する") }).click();
      const callback = await received;
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

      // The app's server exchanges it: the same details, a passkey login (acr phr) made just now, no refresh token.
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokenResponse = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirectUri,
        codeVerifier,
        insecureRequests,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, { requireIdToken: true });
      expect(tokens.authorization_details).toEqual(withdrawal);
      expect(tokens.refresh_token).toBeUndefined();
      expectLoginClaims(oauth.getValidatedIdTokenClaims(tokens), LOGINS.passkey, startedAt);
      // The account hears of it, with the amount.
      const notice = await idp.latest(email);
      expect(notice.subject).toContain("出金のお手続きを承認しました");
      expect(notice.text).toContain("出金額: 100,000円");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
