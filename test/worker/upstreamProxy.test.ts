import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../worker/index";
import { isProxiedCall } from "../../worker/routes/upstreamProxy";
import { appStart } from "../support/appStart";
import { CLIENT, GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, fromOwnAddress, get, ORIGIN, PAST_SHORT_TIMEOUT_MS, SHORT_TIMEOUT, siteFetch } from "./helpers";
import { authorizationAskedBy, Journey } from "./journey";

afterEach(async () => {
  await emulator.clearFaults();
});

describe("the /auth and /oauth2 proxy (architecture §3)", () => {
  it.each([
    ["GET", "/auth/health", true],
    ["GET", "/auth/v1/logout", true],
    ["GET", "/auth/v1/user/profile", true],
    ["DELETE", "/auth/v1/user/profile", false],
    // The site's forms make these calls themselves; from outside they would be a side door.
    ["POST", "/auth/v1/login", false],
    ["GET", "/auth/v1/login", false],
    ["POST", "/auth/v1/password/forgot", false],
    ["POST", "/auth/v1/password/confirm", false],
    ["POST", "/auth/v1/register/checkEmail", false],
    ["POST", "/auth/v1/register/confirm/resend", false],
    ["PATCH", "/auth/v1/user/password", false],
    ["PATCH", "/auth/v1/user/email", false],
    ["POST", "/auth/v1/consent", false],
    ["GET", "/auth/v1/tenants/gungnir-aurora/loginHint/abc123", false],
    ["GET", "/oauth2/auth", true],
    // docs/operations.md: an app's server pushes an operation at the site's origin, as discovery advertises.
    ["POST", "/oauth2/par", true],
    ["GET", "/oauth2/par", false],
    ["POST", "/oauth2/token", true],
    ["POST", "/oauth2/revoke", false],
    ["GET", "/admin/clients", false],
    ["GET", "/.well-known/jwks.json", true],
    ["GET", "/.well-known/openid-configuration", true],
  ])("%s %s allowed: %s", (method, path, allowed) => {
    expect(isProxiedCall(method, path)).toBe(allowed);
  });

  it.each([
    ["a cross-site page (Fetch Metadata)", { "Sec-Fetch-Site": "cross-site" }, 403],
    ["a same-site sibling (Fetch Metadata)", { "Sec-Fetch-Site": "same-site" }, 403],
    ["an old browser on another origin", { Origin: "https://evil.example" }, 403],
    ["a cross-site page with a bearer token", { "Sec-Fetch-Site": "cross-site", Authorization: "Bearer t" }, 400],
    ["the site's own page", { "Sec-Fetch-Site": "same-origin", Origin: ORIGIN }, 400],
    ["a native app (no browser headers)", {}, 400],
  ])(
    "refuses a state-changing call from %s unless it is the site's own or carries a bearer",
    async (_, headers, status) => {
      const response = await siteFetch(`${ORIGIN}/oauth2/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body: "grant_type=authorization_code&code=nope",
      });
      expect(response.status).toBe(status);
    },
  );

  it("forwards only allow-listed headers and the upstream's own session cookie, and rewrites its Set-Cookie", async () => {
    const seen: Request[] = [];
    const upstream = {
      async fetch(request: Request) {
        seen.push(request);
        const headers = new Headers({ "Content-Type": "application/json", "X-Upstream-Secret": "internal" });
        headers.append("Set-Cookie", "oauth2_authentication_session=s2; Path=/; Domain=evil.example; SameSite=None");
        headers.append("Set-Cookie", "__Host-tokens=planted; Path=/; Secure; HttpOnly");
        headers.append("Set-Cookie", "tracker=1; Path=/");
        return new Response("{}", { status: 200, headers });
      },
    };
    const stubbed = { ...env, IDENTITY: upstream } as unknown as Env;
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const browserHeaders = {
      // The upstream's own name is not the site's: a cookie by that name (planted by another host) is not passed.
      Cookie:
        "__Host-tokens=secret-token; __Host-sign-in=sealed; oauth2_authentication_session=planted; __Host-oauth2-session=s1; other=x",
      Authorization: "Bearer app-token",
      "X-Evil": "1",
      "X-Device-Id": "D".repeat(32),
    };
    const oauth = await app.fetch(
      new Request(`${ORIGIN}/oauth2/auth?client_id=x`, { headers: browserHeaders }),
      stubbed,
      ctx,
    );
    const profile = await app.fetch(
      new Request(`${ORIGIN}/auth/v1/user/profile`, { headers: browserHeaders }),
      stubbed,
      ctx,
    );
    expect(seen).toHaveLength(2);
    const [toOauth, toProfile] = seen;
    expect(toOauth?.headers.get("cookie")).toBe("oauth2_authentication_session=s1");
    expect(toProfile?.headers.get("cookie")).toBeNull();
    for (const sent of seen) {
      expect(sent.headers.get("authorization")).toBe("Bearer app-token");
      expect(sent.headers.get("x-device-id")).toBe("D".repeat(32));
      expect(sent.headers.get("x-evil")).toBeNull();
      expect(sent.headers.get("x-forwarded-host")).toBe(new URL(ORIGIN).host);
    }
    for (const answer of [oauth, profile]) {
      expect(answer.headers.getSetCookie()).toEqual([
        "__Host-oauth2-session=s2; Path=/; Secure; HttpOnly; SameSite=Lax",
      ]);
      expect(answer.headers.get("x-upstream-secret")).toBeNull();
    }
  });

  it("relays an allowed call to the upstream and answers others with 404", async () => {
    const health = await get("/auth/health");
    expect(health.status).toBe(200);
    const refused = await siteFetch(`${ORIGIN}/auth/v1/admin/users`, { method: "GET" });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ type: "not_found" });
  });

  it("overwrites the client's X-Forwarded-* with the site's own origin", async () => {
    const response = await get("/.well-known/openid-configuration", [], {
      "X-Forwarded-Host": "evil.example",
      "X-Forwarded-Proto": "http",
    });
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as { issuer: string; authorization_endpoint: string };
    expect(discovery.issuer).toBe(ORIGIN);
    expect(discovery.authorization_endpoint).toBe(`${ORIGIN}/oauth2/auth`);
  });

  it("passes an app server's push (POST /oauth2/par) to the endpoint discovery advertises at the site's origin", async () => {
    const discovery = (await (await get("/.well-known/openid-configuration")).json()) as {
      pushed_authorization_request_endpoint: string;
    };
    expect(discovery.pushed_authorization_request_endpoint).toBe(`${ORIGIN}/oauth2/par`);
    const push = (headers: Record<string, string> = {}) =>
      siteFetch(discovery.pushed_authorization_request_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({
          client_id: GUNGNIR.clientId,
          response_type: "code",
          redirect_uri: `https://app.${GUNGNIR.serviceId}.example/oauth/callback`,
          state: "operation-state-0001",
          scope: "openid",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          code_challenge_method: "S256",
          authorization_details: JSON.stringify([
            { type: "contact_change", channel: "phone", new_value: "***-****-5678" },
          ]),
        }),
      });
    // A server (no browser headers): the upstream's answer as it is, its request_uri and no-store.
    const pushed = await push();
    expect(pushed.status).toBe(201);
    expect(pushed.headers.get("Cache-Control")).toBe("no-store");
    expect(await pushed.json()).toMatchObject({
      request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
      expires_in: 90,
    });
    // A page of another site cannot push in the customer's browser.
    expect((await push({ "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    // The upstream's refusal, RFC 6749 §5.2 JSON, relayed as it is.
    const refused = await siteFetch(`${ORIGIN}/oauth2/par`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: GUNGNIR.clientId, response_type: "code" }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_request" });
  });

  it("answers 504 when the upstream is slower than the timeout, 502 when the connection drops", async () => {
    await emulator.fault({
      method: "GET",
      pathPattern: "/auth/health",
      delayMs: PAST_SHORT_TIMEOUT_MS,
    });
    const slow = await get("/auth/health", [], {}, SHORT_TIMEOUT);
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ type: "upstream_timeout" });
    await emulator.fault({ method: "GET", pathPattern: "/auth/health", drop: true });
    const dropped = await get("/auth/health");
    expect(dropped.status).toBe(502);
    expect((await get("/auth/health")).status).toBe(200);
  });
});

describe("the OAuth2 session through the proxy", () => {
  it("relays the emulator's session cookie both ways, like a real upstream's", async () => {
    await emulator.reset();
    const email = "proxy.user@example.com";
    expect(await emulator.seed({ email })).toBeTruthy();
    // The app starts the authorization; the site asks the OAuth2 server and answers the sign-in screen.
    const journey = new Journey();
    const start = await journey.request((await appStart(CLIENT, "signIn")).path);
    expect(start.status).toBe(200);
    const asked = await authorizationAskedBy(start);
    // The user signs in on the site's own screen; the site answers with the OAuth2 server's redirect_to.
    const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
    expect(login.status).toBe(303);
    const redirectTo = new URL(login.headers.get("Location")!);
    expect(redirectTo.origin).toBe(ORIGIN);

    const afterLogin = await journey.request(redirectTo.toString());
    expect(afterLogin.status).toBe(302);
    const session = afterLogin.headers.getSetCookie().find((line) => line.startsWith("__Host-oauth2-session="));
    expect(session).toMatch(/Path=\/;/);
    const callback = new URL(afterLogin.headers.get("Location")!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${ORIGIN}/callback`);

    // With the relayed cookie the OAuth2 server skips the login screen (unless the site forces a new login).
    const unforced = new URL(asked);
    unforced.searchParams.delete("prompt");
    const again = await get(`${unforced.pathname}${unforced.search}`, [session!.split(";")[0]!]);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get("Location")!).pathname).toBe("/callback");
  });
});

describe("developer endpoints", () => {
  it("reach the emulator in the dev environment", async () => {
    expect(await emulator.outbox("nobody@example.com")).toEqual([]);
  });

  it("do not exist without the emulator binding (production)", async () => {
    const production = {
      ...env,
      APP_ENV: "prod",
      IDENTITY: undefined,
      SESSION_KEYS: `k1:${"A".repeat(43)}`,
    } as unknown as Env;
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const response = await app.fetch(fromOwnAddress(new Request(`${ORIGIN}/__emulator/outbox`)), production, ctx);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("ページが見つかりません");
  });
});
