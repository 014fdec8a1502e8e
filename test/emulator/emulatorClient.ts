import { env } from "cloudflare:test";
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";
import { TOTP } from "otpauth";
import { expect } from "vitest";
import { appRedirectUri, findClient } from "../../emulator/contract/clients";
import type { EmulatorEnv } from "../../emulator/env";
import emulator from "../../emulator/index";
import { sampleClientIds } from "../../themes/data/clients";
import { emulatorClient, PASSWORD } from "../support/emulatorClient";
import { TEST_DEVICE_DIGEST } from "../support/testDevice";

/** The site's origin as the emulator sees it when no X-Forwarded-* headers come along (SITE_ORIGIN). */
export const site = "http://localhost:5173";
export const clientId = sampleClientIds.client;
export const siteCallback = `${site}/callback`;
export const strongPassword = PASSWORD;

export function serviceOf(client: string): string {
  const found = findClient(client);
  if (found === undefined) throw new Error(`unknown client ${client}`);
  return found.serviceId;
}

export { appRedirectUri, sampleClientIds };

// This project's env is the emulator's own (emulator/wrangler.toml); the generated `Env` type is the site's.
const emulatorEnv = env as unknown as EmulatorEnv;
// The emulator keeps all its state in one Durable Object named "global" (emulator/identityState.ts). Each test file
// has an instance of its own, the name suffixed with the file's id, so that files run at once without resetting
// each other's users; the emulator's code is the same.
const FILE_STATE = crypto.randomUUID();

/** The state object's stub for a name the emulator uses, in this file's own instance. */
export function fileState(name: string): DurableObjectStub {
  return emulatorEnv.IDENTITY_STATE.getByName(`${name}@${FILE_STATE}`);
}

const fileEnv: EmulatorEnv = {
  ...emulatorEnv,
  IDENTITY_STATE: { getByName: fileState } as unknown as DurableObjectNamespace,
};

/**
 * A call to the emulator at the site's origin, without following redirects: its fetch handler called in this
 * isolate, not through SELF, whose every request costs more than the one before (cloudflare/workers-sdk#15446).
 */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(new URL(path, site), { redirect: "manual", ...init });
  const response = await emulator.fetch(request as Request<unknown, IncomingRequestCfProperties>, fileEnv);
  // What fetch() gives a response: the URL it answers (redirects are never followed here).
  Object.defineProperty(response, "url", { value: request.url });
  return response;
}

export function postJson(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return call(path, {
    ...init,
    method: init.method ?? "POST",
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string> | undefined) },
    body: JSON.stringify(body),
  });
}

/** The emulator's developer endpoints, through the same client as the site's tests (test/support/). */
const dev = emulatorClient(call);

export async function resetEmulator(): Promise<void> {
  await dev.reset();
}

export async function setClock(offsetMs: number): Promise<void> {
  await dev.clock(offsetMs);
}

export const seedUser = dev.seed;
export const outbox = dev.outbox;
export const latestMail = dev.latest;
/** The newest link mailed: a sign-in's notice, which may come after it, carries none. */
export const latestLink = dev.latestLink;
/** The newest 6-digit code sent to an address or phone. */
export const latestCode = dev.latestCode;

/** product §7 register: a sign-up for an address on a login challenge. */
export function register(challenge: string, email: string, password = strongPassword): Promise<Response> {
  return postJson("/auth/v1/register", { login_challenge: challenge, flow: "email_password", email, password });
}

/** Registers an address and answers the new account's username. */
export async function registered(challenge: string, email: string): Promise<string> {
  const response = await register(challenge, email);
  expect(response.status).toBe(201);
  return ((await response.json()) as { username: string }).username;
}

/** PKCE from oauth4webapi, so the emulator's S256 check is held to an implementation it does not share. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = generateRandomCodeVerifier();
  return { verifier, challenge: await calculatePKCECodeChallenge(verifier) };
}

export interface AuthorizeOptions {
  client?: string;
  redirectUri?: string;
  state?: string;
  scope?: string;
  view?: string;
  prompt?: string;
  cookie?: string;
  codeChallenge?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(options: AuthorizeOptions & { codeChallenge: string }): string {
  const url = new URL("/oauth2/auth", site);
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: options.client ?? clientId,
    redirect_uri: options.redirectUri ?? siteCallback,
    state: options.state ?? "state-0123456789",
    scope: options.scope ?? "user.write",
    code_challenge: options.codeChallenge,
    code_challenge_method: "S256",
    view: options.view,
    prompt: options.prompt,
    ...options.extra,
  };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** GET /oauth2/auth without a session: answers the login challenge from the site's login URL. */
export async function startLogin(
  options: AuthorizeOptions = {},
): Promise<{ challenge: string; verifier: string; loginUrl: URL }> {
  const pkce = await pkcePair();
  const response = await call(authorizeUrl({ ...options, codeChallenge: options.codeChallenge ?? pkce.challenge }), {
    headers: options.cookie ? { cookie: options.cookie } : {},
  });
  if (response.status !== 302) throw new Error(`authorize answered ${response.status}: ${await response.text()}`);
  const loginUrl = new URL(response.headers.get("location") ?? "");
  const challenge = loginUrl.searchParams.get("login_challenge");
  if (challenge === null) throw new Error(`no login challenge in ${loginUrl}`);
  return { challenge, verifier: pkce.verifier, loginUrl };
}

/**
 * What the site says of the test device (test/support/testDevice.ts), which every seeded account knows: Chrome on
 * Windows in Tokyo, as the seed lists it. The API holds every account to the devices contract (docs/devices.md), so a
 * login is sent with it unless a test says otherwise (`extra: { context: … }`, or `context: undefined` for none).
 */
export const testDeviceContext = {
  device: TEST_DEVICE_DIGEST,
  browser: "Chrome",
  os: "Windows",
  country: "JP",
  region: "Tokyo",
} as const;

/**
 * The password step; `deviceId` is the site's device_id (product §3), absent unless a test needs one; `extra` adds
 * fields to the body (the login context of docs/devices.md: the test device's unless it says otherwise).
 */
export async function login(
  challenge: string,
  username: string,
  password = strongPassword,
  deviceId?: string,
  extra: Record<string, unknown> = {},
): Promise<Response> {
  return postJson("/auth/v1/login", {
    login_challenge: challenge,
    flow: "email_password",
    username,
    password,
    remember: false,
    context: testDeviceContext,
    ...(deviceId === undefined ? {} : { device_id: deviceId }),
    ...extra,
  });
}

/** Follows redirect_to through /oauth2/auth; answers the final Location and the session cookie set on the way. */
/**
 * A login by the password, then the authenticator app's code for `totpSecret`, from the test device: the answer of
 * the accepted second step (its `redirect_to`, or the step after).
 */
export async function loginWithTotp(challenge: string, username: string, totpSecret: string): Promise<Response> {
  const password = await login(challenge, username);
  expect(password.status, await password.clone().text()).toBe(201);
  const { additional_flow } = (await password.json()) as { additional_flow: { next: string; session: string } };
  expect(additional_flow.next).toBe("mfa_totp");
  return postJson("/auth/v1/login", {
    login_challenge: challenge,
    flow: "mfa_totp",
    username,
    session: additional_flow.session,
    code: new TOTP({ secret: totpSecret }).generate(),
    context: testDeviceContext,
  });
}

export async function follow(
  redirectTo: string,
  cookie?: string,
): Promise<{ location: URL; cookie: string | undefined; response: Response }> {
  const response = await call(redirectTo, { headers: cookie ? { cookie } : {} });
  const setCookie = response.headers.get("set-cookie");
  return {
    location: new URL(response.headers.get("location") ?? "about:blank"),
    cookie: setCookie?.split(";")[0] ?? cookie,
    response,
  };
}

/** Seeded user → code at the site's /callback, the way the site drives it. */
export async function signInForCode(
  email: string,
  options: AuthorizeOptions = {},
): Promise<{ code: string; verifier: string; cookie: string | undefined }> {
  const { challenge, verifier } = await startLogin(options);
  const response = await login(challenge, email);
  const { redirect_to } = (await response.json()) as { redirect_to: string };
  const { location, cookie } = await follow(redirect_to);
  const code = location.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location}`);
  return { code, verifier, cookie };
}

export async function exchangeCode(
  code: string,
  verifier: string,
  options: { client?: string; redirectUri?: string } = {},
): Promise<Response> {
  return call("/oauth2/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: options.client ?? clientId,
      code,
      redirect_uri: options.redirectUri ?? siteCallback,
      code_verifier: verifier,
    }),
  });
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** The token response for a seeded user, through the whole authorization-code flow, and the session cookie. */
export async function tokensFor(
  email: string,
  options: AuthorizeOptions = {},
): Promise<TokenResponse & { code: string; cookie: string | undefined }> {
  const { code, verifier, cookie } = await signInForCode(email, options);
  const response = await exchangeCode(code, verifier, options);
  if (response.status !== 200) throw new Error(`token failed: ${response.status} ${await response.text()}`);
  return { ...((await response.json()) as TokenResponse), code, cookie };
}

/** A bearer access token for a seeded user, through the whole authorization-code flow. */
export async function accessTokenFor(email: string, client = clientId): Promise<string> {
  return (await tokensFor(email, { client })).access_token;
}

/** The refresh_token grant at /oauth2/token. */
export function refresh(refreshToken: string, extra: Record<string, string> = {}): Promise<Response> {
  return call("/oauth2/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: refreshToken,
      ...extra,
    }),
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
