import { createRemoteJWKSet, customFetch as joseCustomFetch, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { beforeEach, describe, expect, it } from "vitest";
import {
  appRedirectUri,
  call,
  clientId,
  login,
  postJson,
  resetEmulator,
  seedUser,
  serviceOf,
  site,
} from "./emulatorClient";

// A maintained client nobody here wrote, talking to the emulator over its real HTTP surface: the emulator's fetch
// handler, with this file's own state (call, ./emulatorClient.ts).
const throughWorker = (url: string, init: RequestInit) => call(url, init);
const httpOptions = { [oauth.customFetch]: throughWorker, [oauth.allowInsecureRequests]: true };
const email = "library@example.jp";
const client: oauth.Client = { client_id: clientId };
const redirectUri = appRedirectUri(serviceOf(clientId));

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(site);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, httpOptions));
}

/** What a browser and the site do between the authorization URL and the app's callback. */
async function authorize(
  as: oauth.AuthorizationServer,
  redirect: string,
  codeChallenge: string,
  state: string,
): Promise<URL> {
  const url = new URL(as.authorization_endpoint ?? "");
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirect,
    scope: "user.write",
    state,
    code_challenge: codeChallenge,
    code_challenge_method: "S256",
    view: "extSignIn",
  }).toString();
  const start = await call(url.toString());
  if (start.status !== 302) return new URL(`about:blank#${start.status}`);
  const challenge = new URL(start.headers.get("location") ?? "").searchParams.get("login_challenge") ?? "";
  const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
  const resumed = await call(redirect_to);
  return new URL(resumed.headers.get("location") ?? "");
}

beforeEach(async () => {
  await resetEmulator();
  await seedUser({ email });
});

/** The token request of the authorization-code grant, as a public client with PKCE. */
function grant(as: oauth.AuthorizationServer, params: URLSearchParams, codeVerifier: string): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, codeVerifier, httpOptions);
}

describe("authorization code + PKCE with oauth4webapi", () => {
  it("gets a code at the registered redirect URI, exchanges it and validates the token against the JWKS", async () => {
    const as = await discover();
    expect(as.issuer).toBe(site);
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await authorize(as, redirectUri, await oauth.calculatePKCECodeChallenge(codeVerifier), state);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await grant(as, params, codeVerifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();

    const keys = createRemoteJWKSet(new URL(as.jwks_uri ?? ""), { [joseCustomFetch]: throughWorker });
    const { payload } = await jwtVerify(tokens.access_token, keys, {
      issuer: as.issuer,
      audience: client.client_id,
      requiredClaims: ["exp"],
    });
    expect(payload.username).toBe(payload.sub);
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);

    await postJson("/__emulator/clock", { offsetMs: 3_601_000 });
    await expect(
      jwtVerify(tokens.access_token, keys, { currentDate: new Date(Date.now() + 3_601_000) }),
    ).rejects.toThrow(/exp/);
  });

  it("refuses a wrong code verifier", async () => {
    const as = await discover();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await authorize(as, redirectUri, await oauth.calculatePKCECodeChallenge(codeVerifier), state);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await grant(as, params, oauth.generateRandomCodeVerifier());
    await expect(oauth.processAuthorizationCodeResponse(as, client, response)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("refuses a reused code", async () => {
    const as = await discover();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await authorize(as, redirectUri, await oauth.calculatePKCECodeChallenge(codeVerifier), state);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const exchange = async () =>
      oauth.processAuthorizationCodeResponse(as, client, await grant(as, params, codeVerifier));
    await expect(exchange()).resolves.toMatchObject({ token_type: "bearer" });
    await expect(exchange()).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("refuses an unregistered redirect URI", async () => {
    const as = await discover();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const callback = await authorize(
      as,
      "https://attacker.example/callback",
      await oauth.calculatePKCECodeChallenge(codeVerifier),
      oauth.generateRandomState(),
    );
    expect(callback.toString()).toBe("about:blank#400");
  });
});
