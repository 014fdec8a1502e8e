import { env } from "cloudflare:test";
import { base64url, CompactEncrypt, compactDecrypt, EncryptJWT, jwtDecrypt, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { tokenClaims } from "../../worker/flow/authorization";
import { app } from "../../worker/index";
import { COOKIE_SIZE_LIMIT, newDeviceId, sealedCookies } from "../../worker/session/cookies";
import { s256 } from "../../worker/session/digest";
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

  // The site seals with WebCrypto alone; a token stays a standard compact JWE that a JOSE library opens and writes.
  it("seals what jose opens, and opens what jose seals", async () => {
    const token = await seal("sign-in", { a: "é" }, { keys: [current], ttlSeconds: 60 });
    const { payload, protectedHeader } = await jwtDecrypt(token, current.secret);
    expect(protectedHeader).toEqual({ alg: "dir", enc: "A256GCM", kid: "k2" });
    expect(payload).toEqual({ pur: "sign-in", dat: { a: "é" }, iat: expect.any(Number), exp: payload.iat! + 60 });
    const iat = Math.floor(Date.now() / 1000);
    const fromJose = await new EncryptJWT({ pur: "sign-in", dat: { b: 2 } })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: "k2" })
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .encrypt(current.secret);
    expect(await unseal("sign-in", fromJose, [previous, current])).toEqual({ b: 2 });
  });

  it("opens only its own form of token", async () => {
    const plaintext = new TextEncoder().encode(JSON.stringify({ pur: "sign-in", dat: 1, exp: 2 ** 40 }));
    const sealWith = (header: Record<string, unknown>, secret = current.secret) =>
      new CompactEncrypt(plaintext)
        .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: "k2", ...header })
        .encrypt(secret);
    expect(await unseal("sign-in", await sealWith({}), [current])).toBe(1);
    expect(await unseal("sign-in", await sealWith({ kid: "k1" }), [current])).toBeUndefined();
    expect(await unseal("sign-in", await sealWith({ enc: "A128GCM" }, new Uint8Array(16)), [current])).toBeUndefined();
    expect(await unseal("sign-in", await sealWith({ zip: "DEF" }), [current])).toBeUndefined();
    const noExpiry = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ pur: "sign-in", dat: 1 })))
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: "k2" })
      .encrypt(current.secret);
    expect(await unseal("sign-in", noExpiry, [current])).toBeUndefined();
    const [header, , iv, ciphertext, tag] = (await sealWith({})).split(".");
    expect(await unseal("sign-in", [header, "AAAA", iv, ciphertext, tag].join("."), [current])).toBeUndefined();
    expect(await unseal("sign-in", [header, "", iv, ciphertext, tag, ""].join("."), [current])).toBeUndefined();
    expect(
      await unseal("sign-in", [header, "", iv, ciphertext, tag?.slice(0, 16)].join("."), [current]),
    ).toBeUndefined();
    // What jose makes of the site's own token, tampered header included: the same refusal.
    const token = await seal("sign-in", 1, { keys: [current], ttlSeconds: 60 });
    const [, ...rest] = token.split(".");
    const otherHeader = base64url.encode(JSON.stringify({ alg: "dir", enc: "A256GCM", kid: "k2", x: 1 }));
    await expect(compactDecrypt([otherHeader, ...rest].join("."), current.secret)).rejects.toThrow();
    expect(await unseal("sign-in", [otherHeader, ...rest].join("."), [current])).toBeUndefined();
  });

  it("reads an access token's claims as jose decodes them, and only a compact JWS", () => {
    const jwt = new UnsecuredJWT({ sub: "user-1", auth_time: 1_700_000_000 }).setExpirationTime(2 ** 31).encode();
    expect(tokenClaims(jwt)).toEqual({ exp: 2 ** 31, username: "user-1", authTime: 1_700_000_000 });
    const named = new UnsecuredJWT({ sub: "user-1", username: "太郎" }).setExpirationTime(2 ** 31).encode();
    expect(tokenClaims(named)?.username).toBe("太郎");
    expect(tokenClaims(new UnsecuredJWT({ sub: "u" }).setExpirationTime(1).encode())).toBeUndefined();
    expect(
      tokenClaims(new UnsecuredJWT({ sub: 7 as unknown as string }).setExpirationTime(2 ** 31).encode()),
    ).toBeUndefined();
    expect(tokenClaims(`${jwt}.x.y`)).toBeUndefined();
    expect(tokenClaims("a.W10.c")).toBeUndefined();
    expect(tokenClaims("a..c")).toBeUndefined();
    expect(tokenClaims("a.!!.c")).toBeUndefined();
  });

  it("makes the S256 PKCE challenge of RFC 7636 Appendix B", async () => {
    expect(await s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("reads SESSION_KEYS as base64url only", () => {
    const secret = new Uint8Array(32).fill(0xfb);
    expect(parseSessionKeys(`k1:${base64url.encode(secret)}`)[0]?.secret).toEqual(secret);
    expect(() => parseSessionKeys(`k1:${btoa(String.fromCharCode(...secret))}`)).toThrow();
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

describe("configuration that cannot go wrong (architecture §8)", () => {
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
