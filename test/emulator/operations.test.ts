import { runInDurableObject } from "cloudflare:test";
import { createRemoteJWKSet, decodeJwt, customFetch as joseCustomFetch, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { lifetimes } from "../../emulator/contract/lifetimes";
import { bindingChallenge } from "../../emulator/contract/operations";
import {
  AUTHORIZATION_DETAILS_MAX_BYTES,
  type AuthorizationDetails,
  canonicalJson,
  parseAuthorizationDetails,
} from "../../forms/authorizationDetails";
import type { SoftAuthenticator } from "../support/softAuthenticator";
import { GUNGNIR, LEMON, PARTNER, TOTP_SECRET } from "../support/vocabulary";
import {
  appRedirectUri,
  bearer,
  call,
  clientId,
  exchangeCode,
  fileState,
  follow,
  latestCode as latestCodeTo,
  login,
  outbox,
  postJson,
  resetEmulator,
  seedUser,
  serviceOf,
  setClock,
  site,
  siteCallback,
  startLogin,
  testDeviceContext,
  tokensFor,
} from "./emulatorClient";
import { expectNotice, linkLike } from "./noticeExpectations";
import {
  account,
  accountWithPasskey,
  assertionOptions,
  assertionResult,
  bankAccountChange,
  bindingNonceOf,
  challengeFor,
  emailChange,
  openPushed,
  PUSHED_STATE,
  par,
  phoneChange,
  pushed,
  pushedAuthorizeUrl,
  pushForm,
  withdrawal,
} from "./operationFlow";

// docs/operations.md: an operation pushed as RFC 9396 authorization_details (RFC 9126), approved by a passkey whose
// challenge is derived from exactly those details, and returned in the tokens, the notice and the history.

beforeEach(resetEmulator);

const email = "operations@example.jp";
const totpNow = () => new TOTP({ secret: TOTP_SECRET }).generate();
const requestUriPattern = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;

interface OAuthError {
  error: string;
  error_description: string;
}

async function expectOAuthError(response: Response, status: number, error: string): Promise<OAuthError> {
  const body = (await response.json()) as OAuthError;
  expect({ status: response.status, error: body.error }, body.error_description).toEqual({ status, error });
  // RFC 6749 §5.2: printable ASCII, no quote or backslash.
  expect(body.error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return body;
}

/** A redirect to `redirectUri` with `error` and `state` (RFC 6749 §4.1.2.1). */
function expectRedirectError(response: Response, redirectUri: string, error: string, state: string): URL {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("state")).toBe(state);
  return location;
}

/** Sent back to the default push's redirect URI (the site's callback) with `error` and its state. */
const expectSentBack = (response: Response, error: string): URL =>
  expectRedirectError(response, siteCallback, error, PUSHED_STATE);

describe("the schema of authorization_details (forms/authorizationDetails.ts)", () => {
  it.each([
    ["a withdrawal", withdrawal()],
    ["a bank-account change", bankAccountChange],
    ["an e-mail change", emailChange],
    ["a phone change", phoneChange],
    ["the largest withdrawal", withdrawal(100_000_000)],
    ["the smallest withdrawal", withdrawal(1)],
    ["a 32-character bank name", withdrawal(1, { ...account, bank_name: "銀".repeat(32) })],
  ])("accepts %s", (_name, details) => {
    expect(parseAuthorizationDetails(JSON.stringify(details))).toEqual({ success: true, data: details });
  });

  const [entry] = withdrawal();
  const refused: [string, unknown][] = [
    ["an unknown type", [{ ...entry, type: "payment_initiation" }]],
    ["an unknown field", [{ ...entry, memo: "x" }]],
    ["an unknown field of the account", withdrawal(1, { ...account, swift: "MHCBJPJT" } as never)],
    ["a missing field", [{ type: "withdrawal", amount: 100_000, currency: "JPY" }]],
    ["a missing account field", withdrawal(1, { ...account, account_number: undefined } as never)],
    ["no yen", withdrawal(0)],
    ["over 100,000,000 yen", withdrawal(100_000_001)],
    ["a fraction of a yen", withdrawal(1.5)],
    ["an amount as a string", [{ ...entry, amount: "100000" }]],
    ["another currency", [{ ...entry, currency: "USD" }]],
    ["another account type", withdrawal(1, { ...account, account_type: "定期" } as never)],
    ["an unmasked account number", withdrawal(1, { ...account, account_number: "12341234" })],
    ["three asterisks", withdrawal(1, { ...account, account_number: "***1234" })],
    ["five digits", withdrawal(1, { ...account, account_number: "****12345" })],
    ["full-width digits", withdrawal(1, { ...account, account_number: "****１２３４" })],
    ["an empty bank name", withdrawal(1, { ...account, bank_name: "" })],
    ["a 33-character bank name", withdrawal(1, { ...account, bank_name: "銀".repeat(33) })],
    ["a control character", withdrawal(1, { ...account, branch_name: "渋谷\n支店" })],
    ["a bidi override", withdrawal(1, { ...account, bank_name: "みずほ\u202e銀行" })],
    ["white space at an end", withdrawal(1, { ...account, bank_name: "みずほ銀行 " })],
    ["an unmasked e-mail address", [{ type: "contact_change", channel: "email", new_value: "taro@example.com" }]],
    ["an e-mail mask of two letters", [{ type: "contact_change", channel: "email", new_value: "ta***@example.com" }]],
    ["an e-mail mask without a domain", [{ type: "contact_change", channel: "email", new_value: "t***@" }]],
    ["an unmasked phone number", [{ type: "contact_change", channel: "phone", new_value: "090-1234-5678" }]],
    ["a phone mask for an e-mail", [{ type: "contact_change", channel: "email", new_value: "***-****-5678" }]],
    ["an unknown channel", [{ type: "contact_change", channel: "fax", new_value: "***-****-5678" }]],
    ["two entries", [...withdrawal(), ...phoneChange]],
    ["no entry", []],
    ["an object, not an array", entry],
  ];
  it.each(refused)("refuses %s", (_name, details) => {
    const parsed = parseAuthorizationDetails(JSON.stringify(details));
    expect(parsed.success).toBe(false);
  });

  it("refuses text that is not JSON, and JSON over 4 KB", () => {
    expect(parseAuthorizationDetails("[{")).toMatchObject({ success: false, error: expect.stringContaining("JSON") });
    const [big] = withdrawal();
    const padded = `${JSON.stringify([big])}${" ".repeat(AUTHORIZATION_DETAILS_MAX_BYTES)}`;
    expect(parseAuthorizationDetails(padded)).toMatchObject({ success: false, error: expect.stringContaining("4096") });
  });

  it("writes the canonical JSON: keys sorted at every level, no white space", () => {
    expect(canonicalJson(withdrawal())).toBe(
      '[{"amount":100000,"currency":"JPY","destination":{"account_number":"****1234","account_type":"普通",' +
        '"bank_name":"みずほ銀行","branch_name":"渋谷支店"},"type":"withdrawal"}]',
    );
    const reordered = JSON.parse('[{"type":"contact_change","new_value":"***-****-5678","channel":"phone"}]');
    expect(canonicalJson(reordered)).toBe(canonicalJson(phoneChange));
  });
});

describe("POST /oauth2/par", () => {
  it("keeps the request and answers its request_uri (201), good for 90 seconds", async () => {
    const response = await par(pushForm());
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { request_uri: string; expires_in: number };
    expect(body).toEqual({ request_uri: expect.stringMatching(requestUriPattern), expires_in: 90 });
  });

  // Good details, made over 4 KB by white space alone.
  const tooBig = `${JSON.stringify(withdrawal())}${" ".repeat(AUTHORIZATION_DETAILS_MAX_BYTES)}`;
  it.each([
    ["an unknown type", { details: [{ type: "payment_initiation", amount: 1 }] }, 400, "invalid_authorization_details"],
    ["a missing field", { details: [{ type: "bank_account_change" }] }, 400, "invalid_authorization_details"],
    ["an amount out of range", { details: withdrawal(100_000_001) }, 400, "invalid_authorization_details"],
    ["details over 4 KB", { details: tooBig }, 400, "invalid_authorization_details"],
    ["details that are not JSON", { details: "withdrawal=100000" }, 400, "invalid_authorization_details"],
    [
      "an unmasked contact",
      { details: [{ ...emailChange[0], new_value: "taro@example.com" }] },
      400,
      "invalid_authorization_details",
    ],
    ["no details", { details: null }, 400, "invalid_request"],
    ["an unknown client", { client: "no-such-client" }, 401, "invalid_client"],
    ["no client", { extra: { client_id: undefined } }, 401, "invalid_client"],
    ["an unregistered redirect_uri", { redirectUri: "https://attacker.example/callback" }, 400, "invalid_request"],
    ["no redirect_uri", { extra: { redirect_uri: undefined } }, 400, "invalid_request"],
    ["another response_type", { extra: { response_type: "token" } }, 400, "unsupported_response_type"],
    ["no PKCE challenge", { extra: { code_challenge: undefined } }, 400, "invalid_request"],
    ["PKCE plain", { extra: { code_challenge_method: "plain" } }, 400, "invalid_request"],
    ["no state", { extra: { state: undefined } }, 400, "invalid_request"],
    ["prompt=none", { extra: { prompt: "none" } }, 400, "invalid_request"],
    ["a request_uri", { extra: { request_uri: "urn:ietf:params:oauth:request_uri:x" } }, 400, "invalid_request"],
    ["a request object", { extra: { request: "eyJhbGciOiJub25lIn0.e30." } }, 400, "invalid_request"],
  ])("refuses %s", async (_name, options, status, error) => {
    await expectOAuthError(await par(pushForm(options)), status, error);
  });

  it("refuses a parameter given twice, a body that is not a form, and any other method", async () => {
    const twice = pushForm();
    twice.append("scope", "user.write");
    await expectOAuthError(await par(twice), 400, "invalid_request");
    const json = await postJson("/oauth2/par", Object.fromEntries(pushForm()));
    await expectOAuthError(json, 400, "invalid_request");
    const get = await call("/oauth2/par");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("refuses a partner's client, whose consent an operation never asks: unauthorized_client", async () => {
    const form = pushForm({ client: PARTNER.clientId, redirectUri: appRedirectUri(PARTNER.serviceId) });
    await expectOAuthError(await par(form), 400, "unauthorized_client");
  });

  it("names the field that failed, never the value", async () => {
    const { error_description } = await expectOAuthError(
      await par(pushForm({ details: withdrawal(100_000_001, { ...account, bank_name: "悪い銀行\u0007" }) })),
      400,
      "invalid_authorization_details",
    );
    expect(error_description).toContain("authorization_details.0.amount");
    expect(error_description).toContain("authorization_details.0.destination.bank_name");
    expect(error_description).not.toContain("100000001");
  });
});

describe("GET /oauth2/auth with a request_uri", () => {
  it("asks a fresh passkey login whatever session the browser has, and the login request shows the details", async () => {
    await accountWithPasskey(email);
    // A signed-in browser: a plain request of the same client goes straight to its code.
    const { cookie } = await tokensFor(email);
    const { requestUri } = await pushed({ details: withdrawal(), extra: { prompt: "consent", max_age: "3600" } });
    const loginChallenge = await openPushed(requestUri, clientId, cookie);

    const response = await call(`/auth/v1/login?login_challenge=${encodeURIComponent(loginChallenge)}`);
    const body = (await response.json()) as {
      authorization_details: AuthorizationDetails;
      request_url: string;
      oidc_context: { acr_values: string[] };
      skip: boolean;
    };
    expect(body.authorization_details).toEqual(withdrawal());
    expect(body.oidc_context.acr_values).toEqual(["phr"]);
    expect(body.skip).toBe(false);
    const requestUrl = new URL(body.request_url);
    expect(requestUrl.searchParams.get("prompt")).toBe("login consent");
    expect(requestUrl.searchParams.get("max_age")).toBe("0");
    expect(requestUrl.searchParams.get("state")).toBe(PUSHED_STATE);
    // The details are in no URL: not the login URL's, not the request URL's.
    expect(body.request_url).not.toContain("authorization_details");
    expect(body.request_url).not.toContain("100000");
  });

  it("answers no authorization_details for a sign-in's login request", async () => {
    const start = await call(
      `/oauth2/auth?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: siteCallback,
        state: "state-0123456789",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      })}`,
    );
    const challenge = new URL(start.headers.get("location") ?? "").searchParams.get("login_challenge") ?? "";
    const body = (await (await call(`/auth/v1/login?login_challenge=${challenge}`)).json()) as object;
    expect(body).not.toHaveProperty("authorization_details");
  });

  it("is used once: a second use goes back to the redirect URI with invalid_request_uri and the state", async () => {
    const { requestUri } = await pushed();
    await openPushed(requestUri);
    expectSentBack(await call(pushedAuthorizeUrl(requestUri)), "invalid_request_uri");
  });

  it("expires after 90 seconds by the emulator clock", async () => {
    const first = await pushed();
    const second = await pushed();
    await setClock(89_000);
    await openPushed(first.requestUri);
    await setClock(90_000);
    expectSentBack(await call(pushedAuthorizeUrl(second.requestUri)), "invalid_request_uri");
  });

  it("refuses another client's request_uri (400 JSON) and leaves it to its own client", async () => {
    const { requestUri } = await pushed();
    await expectOAuthError(await call(pushedAuthorizeUrl(requestUri, GUNGNIR.clientId)), 400, "invalid_request_uri");
    await openPushed(requestUri);
  });

  it("refuses an unknown request_uri as a 400 JSON error", async () => {
    await expectOAuthError(
      await call(pushedAuthorizeUrl("urn:ietf:params:oauth:request_uri:nothing-pushed")),
      400,
      "invalid_request_uri",
    );
    await expectOAuthError(
      await call(pushedAuthorizeUrl("https://attacker.example/request")),
      400,
      "invalid_request_uri",
    );
  });

  it("refuses any other parameter beside client_id and request_uri, and the request is spent", async () => {
    const extras: Record<string, string>[] = [
      { authorization_details: JSON.stringify(withdrawal(1)) },
      { redirect_uri: siteCallback },
      { prompt: "none" },
    ];
    for (const extra of extras) {
      const { requestUri } = await pushed();
      expectSentBack(await call(pushedAuthorizeUrl(requestUri, clientId, extra)), "invalid_request");
      expectSentBack(await call(pushedAuthorizeUrl(requestUri)), "invalid_request_uri");
    }
  });

  it("refuses authorization_details in a request that was not pushed", async () => {
    const url = new URL("/oauth2/auth", site);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: siteCallback,
      state: "state-0123456789",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      authorization_details: JSON.stringify(withdrawal()),
    }).toString();
    expectRedirectError(await call(url.toString()), siteCallback, "invalid_request", "state-0123456789");
  });
});

describe("the binding: the passkey signs the details", () => {
  it("matches docs/operations.md's example, in the emulator and by the formula", async () => {
    const operation = { bindingNonce: "q1uK3aEB0rQ9n2G7dXo5vJmT8wY4cZsLpHfNiUeOkRA", details: withdrawal() };
    const example = "KNg8i0a2AD7FTzy3i6UvIsofIXqORB7BubwwDAFY2uo";
    expect(await bindingChallenge(operation)).toBe(example);
    expect(await challengeFor(operation.bindingNonce, operation.details)).toBe(example);
  });

  it("derives the challenge from the pushed request's own nonce and the canonical details", async () => {
    const first = await pushed();
    const second = await pushed();
    const options = await assertionOptions(await openPushed(first.requestUri));
    const nonce = await bindingNonceOf(first.requestUri);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(options.challenge).toBe(await challengeFor(nonce, withdrawal()));
    // The same details pushed again: another nonce, another challenge.
    const again = await assertionOptions(await openPushed(second.requestUri));
    expect(again.challenge).not.toBe(options.challenge);
    expect(options).toMatchObject({ allowCredentials: [], userVerification: "required", rpId: "localhost" });
  });

  it("refuses an assertion over other details (another amount), counts it, and accepts the right one", async () => {
    const { authenticator, token } = await accountWithPasskey(email);
    const { requestUri } = await pushed({ details: withdrawal(100_000) });
    const loginChallenge = await openPushed(requestUri);
    const nonce = await bindingNonceOf(requestUri);

    // What a phishing page that showed 100,000 yen and asked the passkey for 9,000,000 would get signed.
    const other = await assertionOptions(loginChallenge);
    const forged = await authenticator.authenticate(other, {
      challenge: await challengeFor(nonce, withdrawal(9_000_000)),
    });
    const refused = await assertionResult(loginChallenge, other.session, forged);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ status: "failed", type: "invalid_credential" });
    const failures = await runInDurableObject(fileState("global"), (_instance, state) =>
      state.storage.sql
        .exec<{ failures: number }>(
          "SELECT failures FROM tickets WHERE kind = 'login_challenge' AND id = ?",
          loginChallenge,
        )
        .one(),
    );
    expect(failures.failures).toBe(1);

    // A random challenge (a sign-in's) is no approval either.
    const random = await assertionOptions(loginChallenge);
    const unbound = await authenticator.authenticate(random, {
      challenge: "c2lnbi1pbi1jaGFsbGVuZ2UtMDEyMzQ1Njc4OWFiY2RlZg",
    });
    expect((await assertionResult(loginChallenge, random.session, unbound)).status).toBe(401);

    const right = await assertionOptions(loginChallenge);
    const accepted = await assertionResult(loginChallenge, right.session, await authenticator.authenticate(right));
    expect(accepted.status, await accepted.clone().text()).toBe(201);

    const { signins } = (await (await call("/auth/v1/user/signins", { headers: bearer(token) })).json()) as {
      signins: { method: string; result: string; operation: string | null }[];
    };
    expect(signins.map(({ method, result, operation }) => ({ method, result, operation }))).toEqual([
      { method: "passkey", result: "success", operation: "withdrawal" },
      { method: "passkey", result: "refused", operation: "withdrawal" },
      { method: "passkey", result: "refused", operation: "withdrawal" },
      { method: "password", result: "success", operation: null },
    ]);
  });

  it("ends the login challenge after 5 refused assertions, as other failures do", async () => {
    const { authenticator } = await accountWithPasskey(email);
    const { requestUri } = await pushed();
    const loginChallenge = await openPushed(requestUri);
    const nonce = await bindingNonceOf(requestUri);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const options = await assertionOptions(loginChallenge);
      const forged = await authenticator.authenticate(options, {
        challenge: await challengeFor(nonce, withdrawal(attempt)),
      });
      expect((await assertionResult(loginChallenge, options.session, forged)).status).toBe(401);
    }
    const dead = await postJson("/auth/v1/passkeys/assertion/options", { login_challenge: loginChallenge });
    expect(dead.status).toBe(410);
    expect(await dead.json()).toMatchObject({ type: "challenge_expired" });
  });

  it("refuses a password (and a sign-up) for an operation's login: operation_requires_passkey, 403", async () => {
    await accountWithPasskey(email);
    const loginChallenge = await openPushed((await pushed()).requestUri);
    const password = await login(loginChallenge, email);
    expect(password.status).toBe(403);
    expect(await password.json()).toMatchObject({ type: "operation_requires_passkey" });
    const wrong = await login(loginChallenge, email, "Wrong-pass1!");
    expect(wrong.status).toBe(403);
    const signUp = await postJson("/auth/v1/register", {
      login_challenge: loginChallenge,
      flow: "email_password",
      email: "newcomer@example.jp",
      password: "Passw0rd!",
    });
    expect(signUp.status).toBe(403);
    expect(await signUp.json()).toMatchObject({ type: "operation_requires_passkey" });
  });
});

/** `POST /auth/v1/login/reject` as the site sends it for a cancel: access_denied, from the test device. */
function reject(loginChallenge: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return postJson("/auth/v1/login/reject", {
    login_challenge: loginChallenge,
    error: "access_denied",
    error_description: "The customer cancelled the operation.",
    context: testDeviceContext,
    ...extra,
  });
}

interface SigninRow {
  method: string;
  result: string;
  operation: string | null;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  service_id: string | null;
}

async function historyOf(token: string): Promise<SigninRow[]> {
  const response = await call("/auth/v1/user/signins", { headers: bearer(token) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { signins: SigninRow[] }).signins;
}

const results = (rows: SigninRow[]) => rows.map(({ method, result, operation }) => ({ method, result, operation }));

describe("the reject: a cancel (POST /auth/v1/login/reject)", () => {
  it("uses the challenge up, and its redirect_to sends the browser to the app with access_denied and the state", async () => {
    const { authenticator } = await accountWithPasskey(email);
    const loginChallenge = await openPushed((await pushed()).requestUri);
    // A ceremony in flight when the customer cancels: it approves nothing afterwards.
    const options = await assertionOptions(loginChallenge);
    const rejected = await reject(loginChallenge);
    const { redirect_to } = (await rejected.json()) as { redirect_to: string };
    expect(rejected.status).toBe(201);
    // Hydra's manner: back through the authorization endpoint, with a login verifier.
    const resume = new URL(redirect_to);
    expect(`${resume.origin}${resume.pathname}`).toBe(`${site}/oauth2/auth`);
    expect(resume.searchParams.get("login_verifier")).toMatch(/.{16,}/);
    const { response } = await follow(redirect_to);
    const location = expectSentBack(response, "access_denied");
    expect(location.searchParams.get("error_description")).toBe("The customer cancelled the operation.");
    expect(location.searchParams.has("code")).toBe(false);
    // The verifier is used once.
    const again = (await follow(redirect_to)).response;
    expectSentBack(again, "invalid_request");

    // The challenge is dead: no login request, no approval, no second reject.
    const asked = await call(`/auth/v1/login?login_challenge=${encodeURIComponent(loginChallenge)}`);
    expect(asked.status).toBe(404);
    expect(await asked.json()).toMatchObject({ type: "challenge_not_found" });
    const approval = await assertionResult(loginChallenge, options.session, await authenticator.authenticate(options));
    expect(approval.status).toBe(404);
    expect(await approval.json()).toMatchObject({ type: "challenge_not_found" });
    const twice = await reject(loginChallenge);
    expect(twice.status).toBe(404);
    expect(await twice.json()).toMatchObject({ type: "challenge_not_found" });
  });

  it("records a passkey cancelled row with the operation's type, for the account that last signed in from the device", async () => {
    const { token } = await accountWithPasskey(email);
    const loginChallenge = await openPushed((await pushed({ details: bankAccountChange })).requestUri);
    expect((await reject(loginChallenge)).status).toBe(201);
    const [cancelled, ...earlier] = await historyOf(token);
    expect(cancelled).toMatchObject({
      method: "passkey",
      result: "cancelled",
      operation: "bank_account_change",
      browser: "Chrome",
      os: "Windows",
      country: "JP",
      region: "Tokyo",
      service_id: serviceOf(clientId),
    });
    expect(results(earlier)).toEqual([{ method: "password", result: "success", operation: null }]);
    // No notice: the customer has just done it, and nothing was approved.
    expect((await outbox(email))[0]?.subject).not.toContain("承認");

    // Another account signs in from the same device since: the next cancel from it is that account's alone.
    const other = "operations.other@example.jp";
    await seedUser({ email: other });
    const { access_token: otherToken } = await tokensFor(other, { scope: "openid user.write" });
    expect((await reject(await openPushed((await pushed({ details: phoneChange })).requestUri))).status).toBe(201);
    expect(results(await historyOf(otherToken))).toEqual([
      { method: "passkey", result: "cancelled", operation: "contact_change" },
      { method: "password", result: "success", operation: null },
    ]);
    expect(await historyOf(token)).toHaveLength(2);
  });

  it("records nothing from a device no account knows, without context, or for a sign-in's login", async () => {
    const { token } = await accountWithPasskey(email);
    const unknownDevice = { ...testDeviceContext, device: `${"x".repeat(42)}A` };
    const strange = await reject(await openPushed((await pushed()).requestUri), { context: unknownDevice });
    expect(strange.status).toBe(201);
    const bare = await reject(await openPushed((await pushed()).requestUri), { context: undefined });
    expect(bare.status).toBe(201);
    // Any login challenge may be rejected: a sign-in's goes back to its app as well, and is no history row.
    const signIn = await startLogin({ state: "sign-in-state-0001" });
    const declined = await reject(signIn.challenge, { error_description: undefined });
    const { redirect_to } = (await declined.json()) as { redirect_to: string };
    const location = expectRedirectError(
      (await follow(redirect_to)).response,
      siteCallback,
      "access_denied",
      "sign-in-state-0001",
    );
    expect(location.searchParams.get("error_description")).toBe("The resource owner denied the request.");
    expect(results(await historyOf(token))).toEqual([{ method: "password", result: "success", operation: null }]);
  });

  it("answers 404 for an unknown challenge, 410 for an expired one, and 400 for another error or description", async () => {
    const unknown = await reject("no-such-challenge");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: "challenge_not_found" });
    for (const extra of [
      { error: "login_required" },
      { error: undefined },
      { error_description: 'a "quoted" description' },
      { error_description: "キャンセル" },
      { error_description: "x".repeat(257) },
      { login_challenge: undefined },
    ]) {
      const refused = await reject(await openPushed((await pushed()).requestUri), extra);
      expect(refused.status, JSON.stringify(extra)).toBe(400);
      expect(await refused.json()).toMatchObject({ type: "invalid_request" });
    }
    const loginChallenge = await openPushed((await pushed()).requestUri);
    await setClock(lifetimes.loginChallenge + 1_000);
    try {
      const expired = await reject(loginChallenge);
      expect(expired.status).toBe(410);
      expect(await expired.json()).toMatchObject({ type: "challenge_expired" });
    } finally {
      await setClock(0);
    }
  });
});

/** A whole approval: pushed, opened, signed by the passkey, followed to the code and exchanged. */
async function approve(
  authenticator: SoftAuthenticator,
  details: AuthorizationDetails,
  scope = "openid",
): Promise<Record<string, unknown>> {
  const { requestUri, verifier } = await pushed({ details, scope });
  const loginChallenge = await openPushed(requestUri);
  const options = await assertionOptions(loginChallenge);
  const result = await assertionResult(loginChallenge, options.session, await authenticator.authenticate(options));
  const { redirect_to } = (await result.json()) as { redirect_to: string };
  const { location } = await follow(redirect_to);
  expect(location.searchParams.get("state")).toBe(PUSHED_STATE);
  const exchanged = await exchangeCode(location.searchParams.get("code") ?? "", verifier);
  const body = (await exchanged.json()) as Record<string, unknown>;
  expect(exchanged.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("the tokens of an approval", () => {
  it("carry the details and acr phr, and no refresh token even with offline scopes", async () => {
    const { authenticator, username } = await accountWithPasskey(email);
    const tokens = await approve(authenticator, withdrawal(), "openid offline offline_access");
    expect(tokens.authorization_details).toEqual(withdrawal());
    expect(tokens).not.toHaveProperty("refresh_token");
    expect(tokens.expires_in).toBe(300);
    const claims = decodeJwt(String(tokens.access_token));
    expect(claims).toMatchObject({
      sub: username,
      acr: "phr",
      amr: ["pop", "mfa"],
      authorization_details: withdrawal(),
      jti: expect.any(String),
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(300);
    expect(Math.abs(Number(claims.auth_time) * 1000 - Date.now())).toBeLessThan(60_000);
    expect(decodeJwt(String(tokens.id_token))).toMatchObject({ acr: "phr" });
  });

  it("are a sign-in's as before for a request that was not pushed", async () => {
    await accountWithPasskey(email);
    const tokens = await tokensFor(email, { scope: "openid offline" });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(tokens.access_token)).not.toHaveProperty("authorization_details");
    expect(tokens).not.toHaveProperty("authorization_details");
  });
});

describe("the notice of an approval", () => {
  it("says what was approved, in words, with the brand, Japan time, device and place, and no URL", async () => {
    const { authenticator } = await accountWithPasskey(email);
    await approve(authenticator, withdrawal());
    const [notice, ...earlier] = await outbox(email);
    const mail = expectNotice(notice, {
      title: "出金のお手続きを承認しました",
      method: "パスキー",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail.text).toContain("出金額: 100,000円");
    expect(mail.text).toContain("出金先: みずほ銀行 渋谷支店 普通 ****1234");
    // The approval's notice, not a sign-in's as well.
    expect(earlier[0]?.subject).not.toContain("ログインのお知らせ");
  });

  it.each([
    [
      "a bank-account change",
      bankAccountChange,
      "出金先口座の変更を承認しました",
      "変更後の出金先口座: 三井住友銀行 本店営業部 普通 ****1234",
    ],
    [
      "an e-mail change",
      emailChange,
      "ご連絡先の変更を承認しました",
      "変更後のメールアドレス: t***@（ドメインは記載していません）",
    ],
    ["a phone change", phoneChange, "ご連絡先の変更を承認しました", "変更後の電話番号: ***-****-5678"],
  ])("names %s", async (_name, details, title, words) => {
    const { authenticator } = await accountWithPasskey(email);
    await approve(authenticator, details);
    const mail = expectNotice((await outbox(email))[0], {
      title,
      method: "パスキー",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail.text).toContain(words);
  });

  it("quotes a bank's name plain: nothing in it reads as a link", async () => {
    const { authenticator } = await accountWithPasskey(email);
    await approve(
      authenticator,
      withdrawal(5, { ...account, bank_name: "evil.example銀行", branch_name: "https:x支店" }),
    );
    const [notice] = await outbox(email);
    expect(notice?.text).toContain("出金先: evil example銀行 https x支店 普通 ****1234");
    expect(notice?.text).not.toMatch(linkLike);
  });
});

describe("discovery", () => {
  it("advertises the pushed authorization request endpoint and the operation types", async () => {
    const body = (await (await call("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      pushed_authorization_request_endpoint: `${site}/oauth2/par`,
      require_pushed_authorization_requests: false,
      authorization_details_types_supported: ["withdrawal", "bank_account_change", "contact_change"],
    });
  });
});

describe("with oauth4webapi", () => {
  const throughWorker = (url: string, init: RequestInit) => call(url, init);
  const httpOptions = { [oauth.customFetch]: throughWorker, [oauth.allowInsecureRequests]: true };
  const gungnir: oauth.Client = { client_id: GUNGNIR.clientId };
  const redirectUri = appRedirectUri(GUNGNIR.serviceId);

  async function discover(): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(site);
    return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, httpOptions));
  }

  it("an OAuth client library nobody here wrote pushes a withdrawal of 100,000 yen for gungnir-aurora", async () => {
    const { authenticator, username } = await accountWithPasskey(email);
    const as = await discover();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const details = withdrawal(100_000);
    const pushedResponse = await oauth.pushedAuthorizationRequest(
      as,
      gungnir,
      oauth.None(),
      {
        response_type: "code",
        redirect_uri: redirectUri,
        scope: "openid offline_access",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        authorization_details: JSON.stringify(details),
      },
      httpOptions,
    );
    const { request_uri, expires_in } = await oauth.processPushedAuthorizationResponse(as, gungnir, pushedResponse);
    expect(request_uri).toMatch(requestUriPattern);
    expect(expires_in).toBe(90);

    // The browser: client_id and request_uri only, then the site's passkey login bound to the details.
    const authorize = new URL(as.authorization_endpoint ?? "");
    authorize.search = new URLSearchParams({ client_id: gungnir.client_id, request_uri }).toString();
    const start = await call(authorize.toString());
    const loginChallenge = new URL(start.headers.get("location") ?? "").searchParams.get("login_challenge") ?? "";
    const options = await assertionOptions(loginChallenge);
    const accepted = await assertionResult(loginChallenge, options.session, await authenticator.authenticate(options));
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = (await follow(redirect_to)).location;
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

    const params = oauth.validateAuthResponse(as, gungnir, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      gungnir,
      oauth.None(),
      params,
      redirectUri,
      codeVerifier,
      httpOptions,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, gungnir, response);
    expect(tokens.authorization_details).toEqual(details);
    expect(tokens.refresh_token).toBeUndefined();
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: username, acr: "phr" });

    const keys = createRemoteJWKSet(new URL(as.jwks_uri ?? ""), { [joseCustomFetch]: throughWorker });
    const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: as.issuer, audience: gungnir.client_id });
    expect(payload).toMatchObject({ acr: "phr", authorization_details: details, client_id: gungnir.client_id });

    const [notice] = await outbox(email);
    expectNotice(notice, {
      title: "出金のお手続きを承認しました",
      serviceId: GUNGNIR.serviceId,
      method: "パスキー",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(notice?.text).toContain("出金額: 100,000円");
  });

  it("reads a refused push as the library's error: invalid_authorization_details", async () => {
    const as = await discover();
    const response = await oauth.pushedAuthorizationRequest(
      as,
      gungnir,
      oauth.None(),
      {
        response_type: "code",
        redirect_uri: redirectUri,
        state: oauth.generateRandomState(),
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: "S256",
        authorization_details: JSON.stringify(withdrawal(100_000_001)),
      },
      httpOptions,
    );
    await expect(oauth.processPushedAuthorizationResponse(as, gungnir, response)).rejects.toMatchObject({
      error: "invalid_authorization_details",
      status: 400,
    });
  });
});

describe("the brand's temporary alternative: the password and a second factor (passkeyOrCode)", () => {
  const lemon = { client: LEMON.clientId, redirectUri: appRedirectUri(LEMON.serviceId) };
  const phone = "+819012345678";

  /** A push for the alternative's brand, opened: its login challenge and the verifier of its code. */
  async function openedAtLemon(details: AuthorizationDetails = withdrawal()) {
    const { requestUri, verifier } = await pushed({ ...lemon, details });
    return { loginChallenge: await openPushed(requestUri, LEMON.clientId), verifier };
  }

  /** A later step of the login, from the test device. */
  function step(loginChallenge: string, flow: string, session: string, code: string, username = email) {
    return postJson("/auth/v1/login", {
      login_challenge: loginChallenge,
      flow,
      username,
      session,
      code,
      context: testDeviceContext,
    });
  }

  /** Follows an accepted login to the app's code and exchanges it. */
  async function tokensOf(accepted: Response, verifier: string): Promise<Record<string, unknown>> {
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const { location } = await follow(redirect_to);
    expect(location.origin + location.pathname).toBe(lemon.redirectUri);
    const exchanged = await exchangeCode(location.searchParams.get("code") ?? "", verifier, lemon);
    expect(exchanged.status).toBe(200);
    return (await exchanged.json()) as Record<string, unknown>;
  }

  it("asks acr phr or mfa of the login, and the TOTP approval's tokens say mfa, with the details and no refresh token", async () => {
    const username = await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const { requestUri, verifier } = await pushed({ ...lemon, scope: "openid offline" });
    const loginChallenge = await openPushed(requestUri, LEMON.clientId);
    const asked = await call(`/auth/v1/login?login_challenge=${loginChallenge}`);
    expect(await asked.json()).toMatchObject({ oidc_context: { acr_values: ["phr", "mfa"] } });
    const password = await login(loginChallenge, email);
    expect(password.status).toBe(201);
    const { additional_flow } = (await password.json()) as { additional_flow: { next: string; session: string } };
    expect(additional_flow.next).toBe("mfa_totp");
    const accepted = await step(loginChallenge, "mfa_totp", additional_flow.session, totpNow());
    expect(accepted.status).toBe(201);
    const body = (await accepted.clone().json()) as Record<string, unknown>;
    // An approval is no sign-in: no passkey enrolment follows it.
    expect(body).not.toHaveProperty("passkey_enrolment");
    const tokens = await tokensOf(accepted, verifier);
    expect(tokens.authorization_details).toEqual(withdrawal());
    expect(tokens).not.toHaveProperty("refresh_token");
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({
      sub: username,
      acr: "mfa",
      amr: ["pwd", "otp", "mfa"],
      authorization_details: withdrawal(),
    });
  });

  it("names the operation in the SMS, and notices the approval with the method used; history says so", async () => {
    await seedUser({ email, mfa: { sms: phone } });
    // The account scope, so that the approval's own token can read the history.
    const { requestUri, verifier } = await pushed({ ...lemon, scope: "openid user.write" });
    const loginChallenge = await openPushed(requestUri, LEMON.clientId);
    const password = await login(loginChallenge, email);
    const { additional_flow } = (await password.json()) as { additional_flow: { next: string; session: string } };
    expect(additional_flow.next).toBe("mfa_sms");
    const [sms] = await outbox(phone);
    expect(sms?.text).toMatch(/^【レモンスクエア証券】出金100,000円（みずほ銀行 \*{4}1234へ）の承認コード: \d{6}\n/);
    const tokens = await tokensOf(
      await step(loginChallenge, "mfa_sms", additional_flow.session, sms?.code ?? ""),
      verifier,
    );
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ acr: "mfa", amr: ["pwd", "sms", "mfa"] });
    const mail = expectNotice((await outbox(email))[0], {
      serviceId: LEMON.serviceId,
      title: "出金のお手続きを承認しました",
      method: "パスワードとSMSのコード",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail.text).toContain("パスワードとSMSのコードで承認しました");
    const rows = await historyOf(String(tokens.access_token));
    expect(results(rows).find((row) => row.operation !== null)).toEqual({
      method: "password_sms",
      result: "success",
      operation: "withdrawal",
    });
  });

  it("refuses an account without a second factor after its right password only: operation_requires_second_factor", async () => {
    await seedUser({ email, mfa: "none" });
    const { loginChallenge } = await openedAtLemon();
    const wrong = await login(loginChallenge, email, "Wrong-pass1!");
    expect(wrong.status).toBe(401);
    const right = await login(loginChallenge, email);
    expect(right.status).toBe(403);
    expect(await right.json()).toMatchObject({ type: "operation_requires_second_factor" });
    // The wrong password is in the history as a refusal for the operation, not as a sign-in.
    const { access_token } = await tokensFor(email, { scope: "openid user.write" });
    expect(results(await historyOf(access_token))).toEqual([
      { method: "password", result: "success", operation: null },
      { method: "password", result: "refused", operation: "withdrawal" },
    ]);
  });

  it("asks a new device's code after the second factor, and never a new password: a leaked one is changed at the next sign-in", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET }, knownDevices: [] });
    const { loginChallenge, verifier } = await openedAtLemon();
    const password = await login(loginChallenge, email, undefined, undefined, { password_leaked: true });
    const mfa = ((await password.json()) as { additional_flow: { session: string } }).additional_flow;
    const device = await step(loginChallenge, "mfa_totp", mfa.session, totpNow());
    const { additional_flow } = (await device.json()) as { additional_flow: { next: string; session: string } };
    expect(additional_flow.next).toBe("device_confirmation");
    const code = await latestCodeTo(email);
    const tokens = await tokensOf(
      await step(loginChallenge, "device_confirmation", additional_flow.session, code),
      verifier,
    );
    expect(tokens.authorization_details).toEqual(withdrawal());
    const signIn = await startLogin();
    const next = await login(signIn.challenge, email);
    const after = ((await next.json()) as { additional_flow: { session: string } }).additional_flow;
    const forced = await step(signIn.challenge, "mfa_totp", after.session, totpNow());
    expect(await forced.json()).toMatchObject({ additional_flow: { next: "new_password" } });
  });

  it("refuses a new password in an operation's login, and the passkey brand's password as before", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const { loginChallenge } = await openedAtLemon();
    const newPassword = await postJson("/auth/v1/login", {
      login_challenge: loginChallenge,
      flow: "new_password",
      username: email,
      session: "any",
      password: "An0ther-Passw0rd!",
    });
    expect(newPassword.status).toBe(403);
    expect(await newPassword.json()).toMatchObject({ type: "operation_requires_passkey" });
    const elsewhere = await openPushed((await pushed()).requestUri);
    expect((await login(elsewhere, email)).status).toBe(403);
  });
});
