import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { PASSWORD } from "../support/emulatorClient";
import { chromiumForFile, siteUrl } from "./browser";
import { emulator, newContext, openApp } from "./journeys";

// The native app, played by a maintained OAuth2 client library nobody here wrote: it opens the site at
// /{tenantId}/auth with its own PKCE, the user signs in in the browser, the app receives its code and
// exchanges it through the site's /oauth2/token proxy, then validates the token against the published JWKS.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const SERVICE = { serviceId: "nosh-shirotae", clientId: sampleClientIds.nosh };
// Local http only: the site runs on 127.0.0.1 in the tests.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const browser = chromiumForFile({ emulator: idp });

describe("the native app with oauth4webapi", () => {
  it("gets a code through the browser, exchanges it at the site's proxy and validates the token", async () => {
    await idp.seed({ email: "app.user@example.com" });
    const issuer = new URL(baseUrl);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: "oidc" }),
    );
    expect(as.token_endpoint).toBe(`${baseUrl}/oauth2/token`);
    const client: oauth.Client = { client_id: SERVICE.clientId };

    const context = await newContext(browser(), true);
    try {
      const app = await openApp(context, baseUrl, SERVICE.serviceId, SERVICE.clientId, "extSignIn");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await page.locator("#field-username").fill("app.user@example.com");
      await page.locator("#field-password").fill(PASSWORD);
      await page.getByRole("button", { name: "ログイン", exact: true }).click();
      const callback = await app.received;

      const params = oauth.validateAuthResponse(as, client, callback, "app-state-0001");
      const grant = () =>
        oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.None(),
          params,
          app.redirectUri,
          app.codeVerifier,
          insecure,
        );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await grant());
      expect(tokens.token_type.toLowerCase()).toBe("bearer");

      const jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
      const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: as.issuer, audience: SERVICE.clientId });
      expect(payload.exp! * 1000).toBeGreaterThan(Date.now());
      expect(payload.sub).toBeTruthy();

      // The same code a second time is refused.
      await expect(oauth.processAuthorizationCodeResponse(as, client, await grant())).rejects.toThrow();
    } finally {
      await context.close();
    }
  });
});
