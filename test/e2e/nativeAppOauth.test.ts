import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { NOSH as SERVICE } from "../support/brandsBeyond";
import { PASSWORD } from "../support/vocabulary";
import { chromiumForFile, siteUrl } from "./browser";
import { emulator, expectLoginClaims, LOGINS, newContext, nowSeconds, oidcApp, openApp } from "./journeys";

// The native app, played by a maintained OAuth2 client library nobody here wrote: it opens the site at
// /{serviceId}/auth with its own PKCE, the user signs in in the browser, the app receives its code and
// exchanges it through the site's /oauth2/token proxy, then validates the token against the published JWKS.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);

const browser = chromiumForFile({ emulator: idp });

describe("the native app with oauth4webapi", () => {
  it("gets a code through the browser, exchanges it at the site's proxy and validates the token", async () => {
    await idp.seed({ email: "app.user@example.com" });
    const { as, client, grant } = await oidcApp(baseUrl, SERVICE.clientId);
    expect(as.token_endpoint).toBe(`${baseUrl}/oauth2/token`);

    const context = await newContext(browser(), true);
    try {
      const app = await openApp(context, baseUrl, SERVICE.serviceId, SERVICE.clientId, "extSignIn");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await page.locator("#field-username").fill("app.user@example.com");
      await page.locator("#field-password").fill(PASSWORD);
      const startedAt = nowSeconds();
      await page.getByRole("button", { name: "ログイン", exact: true }).click();
      const callback = await app.received;

      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await grant(app, callback), {
        requireIdToken: true,
      });
      expect(tokens.token_type.toLowerCase()).toBe("bearer");
      // The id_token, validated by oauth4webapi (signature, iss, aud, exp…), claims a password login
      // (docs/passkeys.md, "What a login claims") made during this sign-in (5 s of clock slack).
      const claims = oauth.getValidatedIdTokenClaims(tokens);
      expectLoginClaims(claims, LOGINS.password, startedAt);

      const jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
      const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: as.issuer, audience: SERVICE.clientId });
      expect(payload.exp! * 1000).toBeGreaterThan(Date.now());
      // The access token is the id_token's user's: a subject each has, not two missing ones.
      expect(claims?.sub).toMatch(/.+/);
      expect(payload.sub).toBe(claims?.sub);

      // The same code a second time is refused.
      await expect(oauth.processAuthorizationCodeResponse(as, client, await grant(app, callback))).rejects.toThrow();
    } finally {
      await context.close();
    }
  });
});
