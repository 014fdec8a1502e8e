import { SELF, env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../worker/index";
import { isProxiedCall } from "../../worker/routes/upstreamProxy";
import { ORIGIN, get } from "./helpers";

async function emulator(path: string, init: RequestInit = {}) {
  return SELF.fetch(`${ORIGIN}/__emulator${path}`, { ...init, headers: { "Content-Type": "application/json", ...(init.headers ?? {}) } });
}

afterEach(async () => {
  await emulator("/faults", { method: "DELETE" });
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
    const response = await get("/.well-known/openid-configuration", [], { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http" });
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as { issuer: string; authorization_endpoint: string };
    expect(discovery.issuer).toBe(ORIGIN);
    expect(discovery.authorization_endpoint).toBe(`${ORIGIN}/oauth2/auth`);
  });

  it("answers 504 when the upstream is slower than the timeout, 502 when the connection drops", async () => {
    await emulator("/faults", { method: "POST", body: JSON.stringify({ method: "GET", pathPattern: "/auth/health", times: 1, delayMs: Number(env.UPSTREAM_TIMEOUT_MS) + 500 }) });
    const slow = await get("/auth/health");
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ type: "upstream_timeout" });
    await emulator("/faults", { method: "POST", body: JSON.stringify({ method: "GET", pathPattern: "/auth/health", times: 1, drop: true }) });
    const dropped = await get("/auth/health");
    expect(dropped.status).toBe(502);
    expect((await get("/auth/health")).status).toBe(200);
  });
});

describe("developer endpoints", () => {
  it("reach the emulator in the dev environment", async () => {
    const response = await emulator("/outbox?to=nobody@example.com");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  });

  it("do not exist without the emulator binding (production)", async () => {
    const production = { ...env, APP_ENV: "prod", IDENTITY: undefined } as unknown as Env;
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const response = await app.fetch(new Request(`${ORIGIN}/__emulator/outbox`), production, ctx);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("ページが見つかりません");
  });
});
