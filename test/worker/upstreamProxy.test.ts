import { env, SELF } from "cloudflare:test";
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";
import { afterEach, describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { app } from "../../worker/index";
import { isProxiedCall } from "../../worker/routes/upstreamProxy";
import { emulator, get, ORIGIN } from "./helpers";

afterEach(async () => {
  await emulator.clearFaults();
});

describe("the /auth and /oauth2 proxy (ARCHITECTURE §3)", () => {
  it.each([
    ["GET", "/auth/health", true],
    ["POST", "/auth/v1/login", true],
    ["GET", "/auth/v1/login", true],
    ["PATCH", "/auth/v1/user/password", true],
    ["POST", "/auth/v1/user/password", false],
    ["GET", "/auth/v1/user/profile", true],
    ["DELETE", "/auth/v1/user/profile", false],
    ["POST", "/auth/v1/register/confirm/resend", true],
    ["POST", "/auth/v1/register/other", false],
    ["GET", "/auth/v1/tenants/gungnir-aurora/loginHint/abc123", true],
    ["GET", "/auth/v1/tenants/../admin/loginHint/x", false],
    ["GET", "/oauth2/auth", true],
    ["POST", "/oauth2/token", true],
    ["POST", "/oauth2/revoke", false],
    ["GET", "/admin/clients", false],
    ["GET", "/.well-known/jwks.json", true],
  ])("%s %s allowed: %s", (method, path, allowed) => {
    expect(isProxiedCall(method, path)).toBe(allowed);
  });

  it("relays an allowed call to the upstream and answers others with 404", async () => {
    const health = await get("/auth/health");
    expect(health.status).toBe(200);
    const refused = await SELF.fetch(`${ORIGIN}/auth/v1/admin/users`, { method: "GET" });
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

  it("answers 504 when the upstream is slower than the timeout, 502 when the connection drops", async () => {
    await emulator.fault({
      method: "GET",
      pathPattern: "/auth/health",
      delayMs: Number(env.UPSTREAM_TIMEOUT_MS) + 500,
    });
    const slow = await get("/auth/health");
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
    const verifier = generateRandomCodeVerifier();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: sampleClientIds.client,
      redirect_uri: `${ORIGIN}/callback`,
      state: "state-0123456789",
      scope: "user.write",
      code_challenge: await calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      view: "signIn",
    });
    const toLogin = await get(`/oauth2/auth?${query}`);
    expect(toLogin.status).toBe(302);
    const loginUrl = new URL(toLogin.headers.get("Location")!);
    expect(loginUrl.origin).toBe(ORIGIN);
    const loginChallenge = loginUrl.searchParams.get("login_challenge")!;

    const login = await SELF.fetch(`${ORIGIN}/auth/v1/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        login_challenge: loginChallenge,
        flow: "email_password",
        username: email,
        password: "Passw0rd!",
        remember: false,
        device_id: "A".repeat(32),
      }),
    });
    expect(login.status).toBe(201);
    const { redirect_to } = (await login.json()) as { redirect_to: string };
    expect(new URL(redirect_to).origin).toBe(ORIGIN);

    const afterLogin = await get(new URL(redirect_to).pathname + new URL(redirect_to).search);
    expect(afterLogin.status).toBe(302);
    const session = afterLogin.headers.getSetCookie().find((line) => line.startsWith("oauth2_authentication_session="));
    expect(session).toMatch(/Path=\/oauth2/);
    const callback = new URL(afterLogin.headers.get("Location")!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${ORIGIN}/callback`);
    expect(callback.searchParams.get("state")).toBe("state-0123456789");

    // With the relayed cookie the OAuth2 server skips the login screen.
    const again = await get(`/oauth2/auth?${query}`, [session!.split(";")[0]!]);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get("Location")!).pathname).toBe("/callback");
  });
});

describe("developer endpoints", () => {
  it("reach the emulator in the dev environment", async () => {
    expect(await emulator.outbox("nobody@example.com")).toEqual([]);
  });

  it("do not exist without the emulator binding (production)", async () => {
    const production = { ...env, APP_ENV: "prod", IDENTITY: undefined } as unknown as Env;
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const response = await app.fetch(new Request(`${ORIGIN}/__emulator/outbox`), production, ctx);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("ページが見つかりません");
  });
});
