import { env } from "cloudflare:test";
import { base64url } from "jose";
import { describe, expect, it } from "vitest";
import { app } from "../../worker/index";
import { COOKIE_SIZE_LIMIT, newDeviceId, sealedCookies } from "../../worker/session/cookies";
import { parseSessionKeys, type SessionKey } from "../../worker/session/keys";
import { seal, unseal } from "../../worker/session/sealed";
import { fromOwnAddress, get, sealedCookie } from "./helpers";

function key(kid: string, fill: number): SessionKey {
  return { kid, secret: new Uint8Array(32).fill(fill) };
}
const current = key("k2", 2);
const previous = key("k1", 1);

describe("sealed cookie crypto", () => {
  it("opens what it sealed, for the same purpose only", async () => {
    const token = await seal("sign-in", { loginChallenge: "abc" }, { keys: [current], ttlSeconds: 60 });
    expect(token.split(".")).toHaveLength(5);
    expect(JSON.parse(atob(token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")))).toMatchObject({
      alg: "dir",
      enc: "A256GCM",
      kid: "k2",
    });
    expect(await unseal("sign-in", token, [current])).toEqual({ loginChallenge: "abc" });
    expect(await unseal("sign-up", token, [current])).toBeUndefined();
  });

  it("never shows the sealed data in the token", async () => {
    const token = await seal("tokens", { accessToken: "secret-access-token" }, { keys: [current], ttlSeconds: 60 });
    expect(token).not.toContain("secret-access-token");
    expect(token).not.toContain(base64url.encode("secret-access-token"));
  });

  it("refuses an expired token", async () => {
    const sealedAt = Date.now() - 120_000;
    const token = await seal("sign-in", { a: 1 }, { keys: [current], ttlSeconds: 60, now: sealedAt });
    expect(await unseal("sign-in", token, [current], sealedAt + 59_000)).toEqual({ a: 1 });
    expect(await unseal("sign-in", token, [current])).toBeUndefined();
  });

  it("rotates keys: the new key seals, the previous one still opens, a retired one does not", async () => {
    const old = await seal("sign-in", { a: 1 }, { keys: [previous], ttlSeconds: 60 });
    expect(await unseal("sign-in", old, [current, previous])).toEqual({ a: 1 });
    expect(await unseal("sign-in", old, [current])).toBeUndefined();
    const fresh = await seal("sign-in", { a: 2 }, { keys: [current, previous], ttlSeconds: 60 });
    expect(await unseal("sign-in", fresh, [current])).toEqual({ a: 2 });
  });

  it("refuses a tampered token and garbage", async () => {
    const token = await seal("sign-in", { a: 1 }, { keys: [current], ttlSeconds: 60 });
    const parts = token.split(".");
    const cipher = parts[3]!;
    parts[3] = (cipher[0] === "A" ? "B" : "A") + cipher.slice(1);
    expect(await unseal("sign-in", parts.join("."), [current])).toBeUndefined();
    expect(await unseal("sign-in", "not-a-jwe", [current])).toBeUndefined();
  });

  it.each([
    ["", /not configured/],
    ["k1", /kid:base64url/],
    ["k1:AAAA", /32 bytes/],
    [`k1:${base64url.encode(new Uint8Array(32))},k1:${base64url.encode(new Uint8Array(32))}`, /repeated kid/],
  ])("rejects SESSION_KEYS %j", (raw, message) => {
    expect(() => parseSessionKeys(raw)).toThrow(message);
  });
});

describe("cookie states", () => {
  it("keeps a sign-in cookie with a 2 KB login challenge under 4,096 bytes", async () => {
    const cookie = await sealedCookie("signIn", { loginChallenge: "c".repeat(2048), username: "user@example.com" });
    const line = `${cookie}; Max-Age=${sealedCookies.signIn.maxAgeSeconds}; Path=/; HttpOnly; Secure; SameSite=Strict`;
    expect(line.length).toBeLessThan(COOKIE_SIZE_LIMIT);
  });

  it("reads a sealed sign-in cookie and ignores one sealed with another key", async () => {
    const good = await sealedCookie("signIn", { loginChallenge: "challenge-1" });
    expect((await get("/signIn", [good])).status).toBe(200);
    const foreign = await seal(
      "sign-in",
      { loginChallenge: "challenge-1" },
      { keys: [key("other", 9)], ttlSeconds: 60 },
    );
    expect((await get("/signIn", [`__Host-sign-in=${foreign}`])).status).toBe(400);
    expect(parseSessionKeys(env.SESSION_KEYS)[0]?.kid).toBe("dev1");
  });

  it("makes device ids of 32 characters A-Z0-9, all different", () => {
    const ids = Array.from({ length: 200 }, () => newDeviceId());
    for (const id of ids) expect(id).toMatch(/^[A-Z0-9]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const used = new Set(ids.join(""));
    expect(used.size).toBe(36);
  });
});

describe("configuration that cannot go wrong (ARCHITECTURE §8; issue 9, finding 8)", () => {
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  const production = (keys: string | undefined) => ({ ...env, APP_ENV: "prod", SESSION_KEYS: keys }) as unknown as Env;
  const strongKey = `k1:${"A".repeat(43)}`;

  it.each([
    ["missing", undefined],
    ["too short", "k1:c2hvcnQ"],
    ["the public development key", env.SESSION_KEYS],
    ["the development key behind a real one", `${strongKey},${env.SESSION_KEYS}`],
  ])(
    "refuses to serve production with a session key that is %s: 503 on every page, and /health says why",
    async (_, keys) => {
      const page = await app.fetch(fromOwnAddress(new Request("https://signin.test/error")), production(keys), ctx);
      expect(page.status).toBe(503);
      expect(page.headers.getSetCookie()).toEqual([]);
      expect(await page.text()).toContain("エラーが発生しました");
      const health = await app.fetch(fromOwnAddress(new Request("https://signin.test/health")), production(keys), ctx);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: "misconfigured" });
    },
  );

  it("serves production with a key of its own", async () => {
    const page = await app.fetch(fromOwnAddress(new Request("https://signin.test/error")), production(strongKey), ctx);
    expect(page.status).toBe(200);
  });
});
