import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { type AuthorizationDetails, canonicalJson } from "../../forms/authorizationDetails";
import {
  type CreationOptionsJSON,
  type RequestOptionsJSON,
  SoftAuthenticator,
  toBase64url,
} from "../support/softAuthenticator";
import { SAMPLE_ACCOUNT, sampleWithdrawal } from "../support/vocabulary";
import {
  bearer,
  call,
  clientId,
  fileState,
  latestMail,
  pkcePair,
  postJson,
  seedUser,
  site,
  siteCallback,
  testDeviceContext,
  tokensFor,
} from "./emulatorClient";

// docs/operations.md: pushing an operation, opening it in the "browser", and approving it with a passkey made by the
// software authenticator, as the site would drive it.

const passkeys = "/auth/v1/passkeys";

/** A bank account as the app shows it, and a withdrawal to it (test/support/vocabulary.ts). */
export const account = SAMPLE_ACCOUNT;
export const withdrawal = sampleWithdrawal;

export const bankAccountChange: AuthorizationDetails = [
  { type: "bank_account_change", account: { ...account, bank_name: "三井住友銀行", branch_name: "本店営業部" } },
];

export const emailChange: AuthorizationDetails = [
  { type: "contact_change", channel: "email", new_value: "t***@example.com" },
];

export const phoneChange: AuthorizationDetails = [
  { type: "contact_change", channel: "phone", new_value: "***-****-5678" },
];

export interface PushOptions {
  client?: string;
  redirectUri?: string;
  state?: string;
  scope?: string;
  /** The details: an array (sent as its JSON), a string (sent as it is), or null (not sent). */
  details?: unknown;
  /** More parameters, or `undefined` to leave one of the defaults out. */
  extra?: Record<string, string | undefined>;
  codeChallenge?: string;
}

/** The form a client pushes: the usual authorization parameters and `authorization_details`. */
/** The `state` a push carries unless a test gives one. */
export const PUSHED_STATE = "state-of-the-operation";

export function pushForm(options: PushOptions = {}): URLSearchParams {
  const details = options.details === undefined ? withdrawal() : options.details;
  const params: Record<string, string | undefined> = {
    client_id: options.client ?? clientId,
    response_type: "code",
    redirect_uri: options.redirectUri ?? siteCallback,
    state: options.state ?? PUSHED_STATE,
    scope: options.scope ?? "openid",
    code_challenge: options.codeChallenge ?? "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    ...(details === null
      ? {}
      : { authorization_details: typeof details === "string" ? details : JSON.stringify(details) }),
    ...options.extra,
  };
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form.set(name, value);
  return form;
}

/** `POST /oauth2/par` with a form body. */
export function par(form: URLSearchParams | string, init: RequestInit = {}): Promise<Response> {
  return call("/oauth2/par", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    ...init,
  });
}

/** A push that succeeds: its `request_uri`, and the PKCE verifier of its challenge. */
export async function pushed(
  options: PushOptions = {},
): Promise<{ requestUri: string; verifier: string; expiresIn: number }> {
  const { verifier, challenge } = await pkcePair();
  const response = await par(pushForm({ codeChallenge: challenge, ...options }));
  const body = (await response.json()) as { request_uri: string; expires_in: number };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return { requestUri: body.request_uri, verifier, expiresIn: body.expires_in };
}

/** The authorization URL of a pushed request: `client_id` and `request_uri` (and `extra`, to be refused). */
export function pushedAuthorizeUrl(
  requestUri: string,
  client: string = clientId,
  extra: Record<string, string> = {},
): string {
  const url = new URL("/oauth2/auth", site);
  url.searchParams.set("client_id", client);
  url.searchParams.set("request_uri", requestUri);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.toString();
}

/** The browser opens the pushed request: the login challenge of the site's login URL it is sent to. */
export async function openPushed(requestUri: string, client: string = clientId, cookie?: string): Promise<string> {
  const response = await call(pushedAuthorizeUrl(requestUri, client), { headers: cookie ? { cookie } : {} });
  expect(response.status, await response.clone().text()).toBe(302);
  const location = new URL(response.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(`${site}/`);
  const challenge = location.searchParams.get("login_challenge");
  if (challenge === null) throw new Error(`no login challenge in ${location}`);
  return challenge;
}

/** The binding nonce the emulator keeps with a pushed request (never answered: read from its state). */
export async function bindingNonceOf(requestUri: string): Promise<string> {
  return runInDurableObject(fileState("global"), (_instance, state) => {
    const row = state.storage.sql
      .exec<{ data: string }>("SELECT data FROM tickets WHERE kind = 'pushed_request' AND id = ?", requestUri)
      .toArray()[0];
    if (row === undefined) throw new Error(`no pushed request ${requestUri}`);
    return (JSON.parse(row.data) as { operation: { bindingNonce: string } }).operation.bindingNonce;
  });
}

/** docs/operations.md's formula, computed here: base64url(SHA-256(nonce + "." + canonicalJson(details))). */
export async function challengeFor(nonce: string, details: AuthorizationDetails): Promise<string> {
  const input = new TextEncoder().encode(`${nonce}.${canonicalJson(details)}`);
  return toBase64url(new Uint8Array(await crypto.subtle.digest("SHA-256", input)));
}

/** `assertion/options` for a login challenge: the ceremony's session and the request options. */
export async function assertionOptions(loginChallenge: string): Promise<RequestOptionsJSON & { session: string }> {
  const response = await postJson(`${passkeys}/assertion/options`, { login_challenge: loginChallenge });
  const body = (await response.json()) as RequestOptionsJSON & { session: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** `assertion/result` from the test device (Chrome on Windows in Tokyo), as the site sends it. */
export function assertionResult(loginChallenge: string, session: string, credential: object): Promise<Response> {
  return postJson(`${passkeys}/assertion/result`, {
    login_challenge: loginChallenge,
    session,
    remember: false,
    context: testDeviceContext,
    ...credential,
  });
}

/**
 * A seeded account with a passkey registered after a password sign-in (one mailed code), its authenticator, and
 * that sign-in's access token (`user.write`: it reads the sign-in history).
 */
export async function accountWithPasskey(
  email: string,
): Promise<{ username: string; authenticator: SoftAuthenticator; token: string }> {
  const username = await seedUser({ email });
  const { access_token: token } = await tokensFor(email, { scope: "openid user.write" });
  const authority = bearer(token);
  const sent = await call(`${passkeys}/registration/code`, { method: "POST", headers: authority });
  expect(sent.status).toBe(201);
  const { code } = await latestMail(email);
  const options = await postJson(`${passkeys}/attestation/options`, { email_code: code }, { headers: authority });
  const { session, ...creation } = (await options.json()) as CreationOptionsJSON & { session: string };
  const authenticator = new SoftAuthenticator({ origin: site });
  const result = await postJson(
    `${passkeys}/attestation/result`,
    { session, ...(await authenticator.register(creation)) },
    { headers: authority },
  );
  expect(result.status, await result.clone().text()).toBe(201);
  return { username, authenticator, token };
}
