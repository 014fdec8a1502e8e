import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type AuthorizeOptions,
  authorizeUrl,
  call,
  clientId,
  exchangeCode,
  follow,
  latestMail,
  login,
  pkcePair,
  postJson,
  refresh,
  resetEmulator,
  seedUser,
  setClock,
  site,
  startLogin,
  tokensFor,
} from "./emulatorClient";

// docs/passkeys.md "What a login claims": acr, amr and auth_time from the login to the tokens.

beforeEach(resetEmulator);

const email = "passkey@example.jp";
const scope = "openid user.write";
const minute = 60_000;

interface TokenSet {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

/** A password sign-in's access token (and its refresh token), with the scope the site asks for. */
async function passwordTokens(address = email): Promise<TokenSet> {
  return (await tokensFor(address, { scope })) as unknown as TokenSet;
}

/** Follows an accepted login to the site's /callback and exchanges the code: the tokens and the session cookie. */
async function finish(redirectTo: string, verifier: string): Promise<TokenSet & { cookie: string }> {
  const { location, cookie } = await follow(redirectTo);
  const code = location.searchParams.get("code");
  if (code === null || cookie === undefined) throw new Error(`no code or cookie at ${location}`);
  const exchanged = await exchangeCode(code, verifier);
  expect(exchanged.status).toBe(200);
  return { ...((await exchanged.json()) as TokenSet), cookie };
}

async function claimsOf(idToken: string): Promise<JWTPayload> {
  const jwks = (await (await call("/.well-known/jwks.json")).json()) as JSONWebKeySet;
  return (await jwtVerify(idToken, createLocalJWKSet(jwks), { issuer: site, audience: clientId })).payload;
}

describe("what a login claims: acr, amr and auth_time", () => {
  it("lists acr and amr in discovery", async () => {
    const discovery = (await (await call("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(["acr", "amr", "auth_time"]));
    expect(discovery.acr_values_supported).toEqual(["phr", "mfa", "pwd"]);
  });

  it("claims pwd for a password alone, mfa with pwd and otp or sms after a second factor", async () => {
    const totp = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const phone = "+8109012345678";
    await seedUser({ email });
    await seedUser({ email: "totp@example.jp", mfa: { totp } });
    await seedUser({ email: "sms@example.jp", mfa: { sms: phone } });

    expect(await claimsOf((await passwordTokens()).id_token)).toMatchObject({ acr: "pwd", amr: ["pwd"] });

    async function secondFactor(address: string, flow: string, code: () => Promise<string>) {
      const { challenge, verifier } = await startLogin({ scope });
      const { additional_flow } = (await (await login(challenge, address)).json()) as {
        additional_flow: { session: string };
      };
      const body = { login_challenge: challenge, flow, username: address, session: additional_flow.session };
      const accepted = await postJson("/auth/v1/login", { ...body, code: await code() });
      const { redirect_to } = (await accepted.json()) as { redirect_to: string };
      return claimsOf((await finish(redirect_to, verifier)).id_token);
    }
    const byTotp = await secondFactor("totp@example.jp", "mfa_totp", async () => new TOTP({ secret: totp }).generate());
    expect(byTotp).toMatchObject({ acr: "mfa", amr: ["pwd", "otp", "mfa"] });
    const bySms = await secondFactor("sms@example.jp", "mfa_sms", async () => (await latestMail(phone)).code ?? "");
    expect(bySms).toMatchObject({ acr: "mfa", amr: ["pwd", "sms", "mfa"] });
  });

  it("keeps acr, amr and auth_time through a refresh", async () => {
    await seedUser({ email });
    const tokens = await passwordTokens();
    const first = await claimsOf(tokens.id_token);
    await setClock(10 * minute);
    const refreshed = (await (await refresh(tokens.refresh_token)).json()) as TokenSet;
    expect(await claimsOf(refreshed.id_token)).toMatchObject({ acr: "pwd", amr: ["pwd"], auth_time: first.auth_time });
  });
});

describe("remembered sessions and step-up (max_age, prompt, acr_values)", () => {
  /** /oauth2/auth with the browser's session cookie: the code of a skipped login, or the login asked instead. */
  async function authorizeWith(cookie: string, options: AuthorizeOptions = {}) {
    const pkce = await pkcePair();
    const response = await call(authorizeUrl({ scope, ...options, codeChallenge: pkce.challenge }), {
      headers: { cookie },
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    const code = location.searchParams.get("code");
    return {
      challenge: location.searchParams.get("login_challenge"),
      error: location.searchParams.get("error"),
      code,
      claims: async () =>
        claimsOf(((await (await exchangeCode(code ?? "", pkce.verifier)).json()) as TokenSet).id_token),
    };
  }

  async function passwordSession(): Promise<{ cookie: string; authTime: unknown }> {
    const { challenge, verifier } = await startLogin({ scope });
    const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
    const { cookie, id_token } = await finish(redirect_to, verifier);
    return { cookie, authTime: (await claimsOf(id_token)).auth_time };
  }

  it("a skipped login claims what the session's password login achieved, never phr", async () => {
    await seedUser({ email });
    const { cookie, authTime } = await passwordSession();
    await setClock(2 * minute);
    const skipped = await authorizeWith(cookie, { extra: { acr_values: "phr" } });
    expect(skipped.challenge).toBeNull();
    expect(await skipped.claims()).toMatchObject({ acr: "pwd", amr: ["pwd"], auth_time: authTime });
  });

  it("asks for a login when the session is older than max_age, or max_age is 0; prompt=none then fails", async () => {
    await seedUser({ email });
    const { cookie } = await passwordSession();
    expect((await authorizeWith(cookie, { extra: { max_age: "0" } })).challenge).not.toBeNull();
    expect((await authorizeWith(cookie, { extra: { max_age: "60" } })).code).not.toBeNull();
    await setClock(61_000);
    expect((await authorizeWith(cookie, { extra: { max_age: "60" } })).challenge).not.toBeNull();
    expect((await authorizeWith(cookie, { extra: { max_age: "120" } })).code).not.toBeNull();
    const none = await authorizeWith(cookie, { prompt: "none", extra: { max_age: "60" } });
    expect(none.error).toBe("login_required");
    for (const maxAge of ["-1", "abc", "1.5", ""]) {
      expect((await authorizeWith(cookie, { extra: { max_age: maxAge } })).error).toBe("invalid_request");
    }
  });
});
