import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import {
  appRedirectUri,
  authorizeUrl,
  call,
  clientId,
  exchangeCode,
  follow,
  login,
  pkcePair,
  postJson,
  refresh,
  resetEmulator,
  sampleClientIds,
  seedUser,
  serviceOf,
  setClock,
  signInForCode,
  site,
  siteCallback,
  startLogin,
  strongPassword,
  type TokenResponse,
  testDeviceContext,
  tokensFor,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "oauth@example.jp";

function profile(accessToken: string): Promise<Response> {
  return call("/auth/v1/user/profile", { headers: { authorization: `Bearer ${accessToken}` } });
}

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await call("/.well-known/jwks.json")).json()) as JSONWebKeySet;
}

describe("discovery and keys", () => {
  it("publishes the endpoints at the site origin", async () => {
    const response = await call("/.well-known/openid-configuration");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer: site,
      authorization_endpoint: `${site}/oauth2/auth`,
      token_endpoint: `${site}/oauth2/token`,
      jwks_uri: `${site}/.well-known/jwks.json`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
  });

  it("follows X-Forwarded-Proto and X-Forwarded-Host", async () => {
    const response = await call("/.well-known/openid-configuration", {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "id.example.jp" },
    });
    expect(await response.json()).toMatchObject({
      issuer: "https://id.example.jp",
      jwks_uri: "https://id.example.jp/.well-known/jwks.json",
    });
  });

  it("publishes one stable ES256 key with a kid", async () => {
    const first = await jwks();
    expect(first.keys).toHaveLength(1);
    expect(first.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig", kid: expect.any(String) });
    expect(first.keys[0]).not.toHaveProperty("d");
    await resetEmulator();
    expect(await jwks()).toEqual(first);
  });
});

describe("GET /oauth2/auth: request validation", () => {
  it("answers 400 JSON for an unknown client or an unregistered redirect_uri", async () => {
    const { challenge } = await pkcePair();
    const unknown = await call(authorizeUrl({ client: "no-such-client", codeChallenge: challenge }));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: "invalid_client" });
    for (const redirectUri of [
      "https://evil.example/callback",
      `${site}/callback/`,
      `${site}/callback?x=1`,
      appRedirectUri("gungnir-aurora"),
    ]) {
      const response = await call(authorizeUrl({ redirectUri, codeChallenge: challenge }));
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.json()).toMatchObject({ error: "invalid_request" });
    }
  });

  it("redirects RFC 6749 errors to a registered redirect_uri with the state", async () => {
    const { challenge } = await pkcePair();
    const cases: [Record<string, string>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "" }, "invalid_request"],
      [{ state: "short" }, "invalid_request"],
      [{ prompt: "bogus" }, "invalid_request"],
    ];
    for (const [extra, error] of cases) {
      const response = await call(authorizeUrl({ codeChallenge: challenge, extra }));
      expect(response.status, JSON.stringify(extra)).toBe(302);
      const location = new URL(response.headers.get("location") ?? "");
      expect(`${location.origin}${location.pathname}`).toBe(siteCallback);
      expect(location.searchParams.get("error")).toBe(error);
    }
    const withoutPkce = new URL(authorizeUrl({ codeChallenge: challenge }));
    withoutPkce.searchParams.delete("code_challenge");
    withoutPkce.searchParams.delete("code_challenge_method");
    const response = await call(withoutPkce.toString());
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("state")).toBe("state-0123456789");
  });

  it("sends a browser without a session to the site login URL, echoing the view", async () => {
    const { loginUrl } = await startLogin({ view: "signUp" });
    expect(loginUrl.origin).toBe(site);
    expect(loginUrl.pathname).toBe("/");
    expect(loginUrl.searchParams.get("client_id")).toBe(clientId);
    expect(loginUrl.searchParams.get("view")).toBe("signUp");
    expect(loginUrl.searchParams.get("login_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { loginUrl: defaulted } = await startLogin();
    expect(defaulted.searchParams.get("view")).toBe("signIn");
  });

  it("builds the login URL at the forwarded origin", async () => {
    const { challenge } = await pkcePair();
    const response = await call(
      authorizeUrl({ codeChallenge: challenge, redirectUri: "https://id.example.jp/callback" }),
      {
        headers: { "x-forwarded-proto": "https", "x-forwarded-host": "id.example.jp" },
      },
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^https:\/\/id\.example\.jp\/\?login_challenge=/);
  });

  it("accepts the brand app redirect URI of the same service", async () => {
    await seedUser({ email });
    const redirectUri = appRedirectUri(serviceOf(clientId));
    const { code, verifier } = await signInForCode(email, { redirectUri });
    expect((await exchangeCode(code, verifier, { redirectUri })).status).toBe(200);
  });
});

describe("the authorization-code flow", () => {
  it("goes login → redirect_to → code at the redirect URI with state and scope", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin({ state: "state-abcdefgh", scope: "user.write" });
    const accepted = await login(challenge, email);
    expect(accepted.status).toBe(201);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const resume = new URL(redirect_to);
    expect(`${resume.origin}${resume.pathname}`).toBe(`${site}/oauth2/auth`);
    expect(resume.searchParams.get("login_verifier")).toBeTruthy();
    expect(resume.searchParams.get("state")).toBe("state-abcdefgh");

    const { location, response } = await follow(redirect_to);
    expect(response.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(siteCallback);
    expect(location.searchParams.get("code")).toBeTruthy();
    expect(location.searchParams.get("state")).toBe("state-abcdefgh");
    expect(location.searchParams.get("scope")).toBe("user.write");
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^oauth2_authentication_session=[^;]+;/);
    expect(cookie).toContain("Path=/oauth2");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
  });

  it("marks the session cookie Secure behind an https site", async () => {
    await seedUser({ email });
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "id.example.jp" };
    const { challenge } = await pkcePair();
    const start = await call(
      authorizeUrl({ codeChallenge: challenge, redirectUri: "https://id.example.jp/callback" }),
      { headers: forwarded },
    );
    const loginChallenge = new URL(start.headers.get("location") ?? "").searchParams.get("login_challenge") ?? "";
    const accepted = await postJson(
      "/auth/v1/login",
      {
        login_challenge: loginChallenge,
        flow: "email_password",
        username: email,
        password: strongPassword,
        context: testDeviceContext,
      },
      { headers: forwarded },
    );
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect(redirect_to.startsWith("https://id.example.jp/oauth2/auth?")).toBe(true);
    const resumed = await call(redirect_to, { headers: forwarded });
    expect(resumed.headers.get("set-cookie")).toContain("Secure");
    expect(resumed.headers.get("location")).toMatch(/^https:\/\/id\.example\.jp\/callback\?code=/);
  });

  it("keeps the session cookie for 24 hours when the login asks to be remembered", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin();
    const accepted = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "email_password",
      username: email,
      password: strongPassword,
      remember: true,
      context: testDeviceContext,
    });
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect((await follow(redirect_to)).response.headers.get("set-cookie")).toContain("Max-Age=86400");
  });

  it("skips the login with a live session, but not with prompt=login", async () => {
    await seedUser({ email });
    const { cookie } = await signInForCode(email);
    expect(cookie).toBeTruthy();
    const { challenge } = await pkcePair();
    const again = await call(authorizeUrl({ codeChallenge: challenge, view: "extSignIn" }), {
      headers: { cookie: cookie ?? "" },
    });
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();

    const forced = await call(authorizeUrl({ codeChallenge: challenge, prompt: "login" }), {
      headers: { cookie: cookie ?? "" },
    });
    expect(new URL(forced.headers.get("location") ?? "").searchParams.get("login_challenge")).toBeTruthy();

    const none = await call(authorizeUrl({ codeChallenge: challenge, prompt: "none" }));
    expect(new URL(none.headers.get("location") ?? "").searchParams.get("error")).toBe("login_required");
  });

  it("ends the session after 24 hours and on logout", async () => {
    await seedUser({ email });
    const { cookie } = await signInForCode(email);
    const { challenge } = await pkcePair();
    await setClock(24 * 3_600_000 + 1000);
    const expired = await call(authorizeUrl({ codeChallenge: challenge }), { headers: { cookie: cookie ?? "" } });
    expect(new URL(expired.headers.get("location") ?? "").searchParams.get("login_challenge")).toBeTruthy();
    await setClock(0);
    const logout = await call("/auth/v1/logout");
    expect(logout.status).toBe(200);
    expect(logout.headers.get("set-cookie")).toMatch(/oauth2_authentication_session=;.*Max-Age=0/);
  });

  /** /oauth2/auth with this cookie: true when it goes straight to a code, false when it asks for a login. */
  async function sessionLives(cookie: string | undefined): Promise<boolean> {
    const { challenge } = await pkcePair();
    const response = await call(authorizeUrl({ codeChallenge: challenge }), { headers: { cookie: cookie ?? "" } });
    const location = new URL(response.headers.get("location") ?? "");
    if (location.searchParams.has("login_challenge")) return false;
    expect(location.searchParams.get("code")).toBeTruthy();
    return true;
  }

  it("ends the session of the cookie on logout and revokes the refresh tokens of its logins", async () => {
    await seedUser({ email });
    const mine = await tokensFor(email);
    const otherBrowser = await tokensFor(email);
    expect(await sessionLives(mine.cookie)).toBe(true);

    const logout = await call("/auth/v1/logout", { headers: { cookie: mine.cookie ?? "" } });
    expect(logout.status).toBe(200);
    expect(await logout.json()).toEqual({});
    expect(logout.headers.get("set-cookie")).toMatch(/oauth2_authentication_session=;.*Max-Age=0/);

    expect(await sessionLives(mine.cookie)).toBe(false);
    expect(await (await refresh(mine.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    expect(await sessionLives(otherBrowser.cookie)).toBe(true);
    expect((await refresh(otherBrowser.refresh_token)).status).toBe(200);
  });

  it("ends the session a bearer token came from on logout, when the cookie does not come along", async () => {
    await seedUser({ email });
    const mine = await tokensFor(email);
    const rotated = (await (await refresh(mine.refresh_token)).json()) as TokenResponse;
    const logout = await call("/auth/v1/logout", { headers: { authorization: `Bearer ${mine.access_token}` } });
    expect(logout.status).toBe(200);
    expect(await sessionLives(mine.cookie)).toBe(false);
    expect(await (await refresh(rotated.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    const forged = await call("/auth/v1/logout", { headers: { authorization: "Bearer not-a-token" } });
    expect(forged.status).toBe(200);
  });

  it("still ends the session of a bearer token that has expired since", async () => {
    await seedUser({ email });
    const mine = await tokensFor(email);
    await setClock(2 * 3_600_000);
    expect((await profile(mine.access_token)).status).toBe(401);
    await call("/auth/v1/logout", { headers: { authorization: `Bearer ${mine.access_token}` } });
    expect(await sessionLives(mine.cookie)).toBe(false);
    expect(await (await refresh(mine.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
  });

  it("uses a login verifier once, and not after 10 minutes", async () => {
    await seedUser({ email });
    const first = await startLogin();
    const { redirect_to } = (await (await login(first.challenge, email)).json()) as { redirect_to: string };
    expect(new URL((await follow(redirect_to)).location).searchParams.get("code")).toBeTruthy();
    const reused = (await follow(redirect_to)).location;
    expect(reused.searchParams.get("error")).toBe("invalid_request");
    expect(reused.searchParams.get("code")).toBeNull();

    const second = await startLogin();
    const late = (await (await login(second.challenge, email)).json()) as { redirect_to: string };
    await setClock(10 * 60_000 + 1000);
    const expired = (await follow(late.redirect_to)).location;
    expect(expired.searchParams.get("error")).toBe("invalid_request");
    expect(expired.searchParams.get("error_description")).toContain("expired");
  });

  it("refuses a login verifier replayed for another client", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin();
    const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
    const other = new URL(redirect_to);
    other.searchParams.set("client_id", sampleClientIds.gungnir);
    other.searchParams.set("redirect_uri", appRedirectUri("gungnir-aurora"));
    expect(new URL((await follow(other.toString())).location).searchParams.get("error")).toBe("invalid_request");
  });

  it("uses a login challenge once, and not after 30 minutes", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin();
    expect((await login(challenge, email)).status).toBe(201);
    const reused = await login(challenge, email);
    expect(reused.status).toBe(404);
    expect(await reused.json()).toMatchObject({ type: "challenge_not_found" });

    const late = await startLogin();
    await setClock(30 * 60_000 + 1000);
    const expired = await login(late.challenge, email);
    expect(expired.status).toBe(410);
    expect(await expired.json()).toMatchObject({ type: "challenge_expired" });
    expect((await login("never-issued", email)).status).toBe(404);
  });

  it("describes a live login challenge, with the authorization request that led to it (state, prompt, ACRs, max_age)", async () => {
    const { challenge } = await startLogin({
      scope: "user.write",
      state: "state-of-this-browser",
      prompt: "login",
      extra: { acr_values: "phr", max_age: "300" },
    });
    const response = await call(`/auth/v1/login?login_challenge=${challenge}`);
    expect(response.status).toBe(200);
    const described = (await response.json()) as { request_url: string };
    expect(described).toMatchObject({
      client_id: clientId,
      service_id: "client",
      requested_scope: ["user.write"],
      skip: false,
    });
    const requestUrl = new URL(described.request_url);
    expect(requestUrl.pathname).toBe("/oauth2/auth");
    expect(requestUrl.searchParams.get("state")).toBe("state-of-this-browser");
    expect(requestUrl.searchParams.get("client_id")).toBe(clientId);
    expect(requestUrl.searchParams.get("prompt")).toBe("login");
    expect(requestUrl.searchParams.get("acr_values")).toBe("phr");
    expect(requestUrl.searchParams.get("max_age")).toBe("300");
    expect(requestUrl.searchParams.has("login_verifier")).toBe(false);
    expect(described).toMatchObject({ oidc_context: { acr_values: ["phr"] } });
    expect((await call("/auth/v1/login?login_challenge=nope")).status).toBe(404);
  });
});

describe("POST /oauth2/token", () => {
  it("issues a signed ES256 access token with the contract claims", async () => {
    await seedUser({ email });
    const username = ((await (await call(`/__emulator/users/${email}`)).json()) as { username: string }).username;
    const { code, verifier } = await signInForCode(email);
    const response = await exchangeCode(code, verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      expires_in: 3600,
      scope: "user.write",
      token_type: "bearer",
      refresh_token: expect.any(String),
    });
    expect(body).not.toHaveProperty("id_token");
    const accessToken = String(body.access_token);
    const header = decodeProtectedHeader(accessToken);
    expect(header).toMatchObject({ alg: "ES256", kid: (await jwks()).keys[0]?.kid });
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(await jwks()), {
      issuer: site,
      audience: clientId,
    });
    expect(payload).toMatchObject({ sub: username, username, scope: "user.write" });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  it("dates tokens by the emulator clock", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email);
    await setClock(7_200_000);
    // the code was issued before the clock moved, so it has expired: the move itself is the point
    expect((await exchangeCode(code, verifier)).status).toBe(400);
    const fresh = await signInForCode(email);
    const { access_token } = (await (await exchangeCode(fresh.code, fresh.verifier)).json()) as {
      access_token: string;
    };
    const { payload } = await jwtVerify(access_token, createLocalJWKSet(await jwks()), {
      currentDate: new Date(Date.now() + 7_200_000),
    });
    expect((payload.iat ?? 0) * 1000 - Date.now()).toBeGreaterThan(7_100_000);
  });

  it("adds an id_token for the openid scope", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email, {
      scope: "openid user.write",
      extra: { nonce: "n-0S6_WzA2Mj" },
    });
    const body = (await (await exchangeCode(code, verifier)).json()) as { id_token: string };
    const { payload } = await jwtVerify(body.id_token, createLocalJWKSet(await jwks()), {
      issuer: site,
      audience: clientId,
    });
    expect(payload.nonce).toBe("n-0S6_WzA2Mj");
  });

  it("uses a code once, even when the first attempt fails", async () => {
    await seedUser({ email });
    const first = await signInForCode(email);
    expect((await exchangeCode(first.code, first.verifier)).status).toBe(200);
    const reused = await exchangeCode(first.code, first.verifier);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });

    const second = await signInForCode(email);
    const wrong = await exchangeCode(second.code, (await pkcePair()).verifier);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    expect((await exchangeCode(second.code, second.verifier)).status).toBe(400);
  });

  it("expires a code after 60 seconds", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email);
    await setClock(61_000);
    const response = await exchangeCode(code, verifier);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringContaining("expired"),
    });
  });

  it("refuses a mismatched redirect_uri, client or malformed request", async () => {
    await seedUser({ email });
    const a = await signInForCode(email);
    expect(
      await (await exchangeCode(a.code, a.verifier, { redirectUri: appRedirectUri("client") })).json(),
    ).toMatchObject({ error: "invalid_grant" });
    const b = await signInForCode(email);
    expect(await (await exchangeCode(b.code, b.verifier, { client: sampleClientIds.gungnir })).json()).toMatchObject({
      error: "invalid_grant",
    });
    const unknownClient = await exchangeCode("x", "y", { client: "no-such-client" });
    expect(unknownClient.status).toBe(401);
    expect(await unknownClient.json()).toMatchObject({ error: "invalid_client" });

    const json = await call("/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(await json.json()).toMatchObject({ error: "invalid_request" });
    const grant = await call("/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=password&username=a&password=b",
    });
    expect(await grant.json()).toMatchObject({ error: "unsupported_grant_type" });
    const missing = await call("/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        code: "c",
        redirect_uri: siteCallback,
      }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "invalid_request" });
  });

  it("rotates refresh tokens", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email);
    const { refresh_token } = (await (await exchangeCode(code, verifier)).json()) as { refresh_token: string };
    expect(await (await refresh(refresh_token, { scope: "user.write admin" })).json()).toMatchObject({
      error: "invalid_scope",
    });
    const refreshed = await refresh(refresh_token);
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(body.scope).toBe("user.write");
    expect(body.refresh_token).not.toBe(refresh_token);
    expect(await (await refresh(refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    expect((await refresh(body.refresh_token)).status).toBe(200);
  });

  it("issues a fresh access token for a live refresh token, and refuses one older than 30 days", async () => {
    await seedUser({ email });
    const first = await tokensFor(email);
    const refreshed = (await (await refresh(first.refresh_token)).json()) as TokenResponse;
    expect(refreshed.access_token).not.toBe(first.access_token);
    expect(decodeJwt(refreshed.access_token).jti).not.toBe(decodeJwt(first.access_token).jti);
    expect((await profile(refreshed.access_token)).status).toBe(200);

    await setClock(30 * 24 * 3_600_000 + 1000);
    const expired = await refresh(refreshed.refresh_token);
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("revokes what a code issued, refreshed tokens included, when the code comes again (RFC 6749 §4.1.2)", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email);
    const issued = (await (await exchangeCode(code, verifier)).json()) as TokenResponse;
    const rotated = (await (await refresh(issued.refresh_token)).json()) as TokenResponse;
    const unrelated = await tokensFor(email);
    expect((await profile(issued.access_token)).status).toBe(200);

    const reused = await exchangeCode(code, verifier);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });

    for (const token of [issued.access_token, rotated.access_token]) {
      const refused = await profile(token);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ type: "unauthorized" });
    }
    expect(await (await refresh(rotated.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    // another code's tokens are not touched
    expect((await profile(unrelated.access_token)).status).toBe(200);
    expect((await refresh(unrelated.refresh_token)).status).toBe(200);
  });

  it("is also reachable as POST /auth/v1/token", async () => {
    await seedUser({ email });
    const { code, verifier } = await signInForCode(email);
    const response = await call("/auth/v1/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        code,
        redirect_uri: siteCallback,
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
  });
});
