import { z } from "zod/mini";
import { serviceIdForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { reportUnexpected } from "../errorReporting";
import { logEvent } from "../log";
import { bounded } from "../queryParams";
import { loggedPath, UpstreamUnavailableError, upstreamFetch } from "./upstream";
import { relaySetCookies, upstreamCookieHeader } from "./upstreamCookies";

// The typed client of product §7: every call the site makes, its body and the response it expects. A
// call's result is a value (ok with data, or a problem); only a broken upstream contract is an exception.

const problemSchema = z.object({
  type: z.optional(bounded(0, 128)),
  detail: z.optional(bounded(0, 1024)),
});
export type Problem = z.infer<typeof problemSchema>;

/** An upstream call's result: ok with its data, or refused with a problem (or unavailable). What the user sees is `Outcome` (render.tsx). */
export type CallResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; problem: Problem; unavailable?: "timeout" | "unreachable" | "malformed" };

interface CallOptions<S extends z.ZodMiniType> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  json?: unknown;
  form?: Record<string, string>;
  bearer?: string | undefined;
  /** docs/passkeys.md "Enrolment": the password login's single-use ticket, instead of a bearer token. */
  enrolmentTicket?: string | undefined;
  /** Further request headers a call of its own needs (docs/devices.md: `Device-Digest`). */
  headers?: Record<string, string>;
  /** Statuses that mean success for this call (product §7 lists 201 or 200). */
  success: readonly number[];
  response: S;
}

/**
 * One upstream call with the browser's OAuth2 session cookie (if it sent one), the upstream's session cookie relayed
 * back to the browser; an upstream that cannot be reached or does not answer in time is an outcome, logged.
 */
async function send(c: AppContext, path: string, init: RequestInit & { headers: Record<string, string> }) {
  const cookies = upstreamCookieHeader(c, path);
  if (cookies) init.headers.Cookie = cookies;
  try {
    const response = await upstreamFetch(c, path, init);
    relaySetCookies(c, response.headers, (line) => c.header("Set-Cookie", line, { append: true }));
    return response;
  } catch (error) {
    if (!(error instanceof UpstreamUnavailableError)) throw error;
    logEvent("warn", "upstream_unavailable", {
      requestId: c.get("requestId"),
      path: loggedPath(path),
      timedOut: error.timedOut,
    });
    const failed: CallResult<never> = {
      ok: false,
      status: 0,
      problem: {},
      unavailable: error.timedOut ? "timeout" : "unreachable",
    };
    return failed;
  }
}

export async function callIdentity<S extends z.ZodMiniType>(
  c: AppContext,
  options: CallOptions<S>,
): Promise<CallResult<z.infer<S>>> {
  const headers: Record<string, string> = { ...options.headers, Accept: "application/json" };
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  else if (options.enrolmentTicket) headers.Authorization = `PasskeyEnrolment ${options.enrolmentTicket}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  const response = await send(c, options.path, {
    method: options.method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  if (!(response instanceof Response)) return response;
  const text = await response.text();
  let parsed: unknown;
  let readable = true;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    readable = false;
  }
  if (options.success.includes(response.status)) {
    // A success must be readable JSON of the call's shape, even where the site needs nothing from its body.
    const data = readable ? options.response.safeParse(parsed) : { success: false as const };
    if (data.success) {
      c.set("upstreamAnswered", true);
      return { ok: true, status: response.status, data: data.data };
    }
    const path = loggedPath(options.path);
    logEvent("error", "upstream_contract_broken", { requestId: c.get("requestId"), path, status: response.status });
    reportUnexpected(c, `upstream contract broken: ${options.method} ${path} answered ${response.status}`, { path });
    return { ok: false, status: response.status, problem: {}, unavailable: "malformed" };
  }
  const problem = problemSchema.safeParse(parsed);
  if (response.status < 500) c.set("upstreamAnswered", true);
  logEvent("info", "upstream_refused", {
    requestId: c.get("requestId"),
    path: loggedPath(options.path),
    status: response.status,
    type: problem.success ? problem.data.type : undefined,
  });
  return { ok: false, status: response.status, problem: problem.success ? problem.data : {} };
}

/** An absolute URL the upstream redirects to (bounded: it may end up in a Location header). */
const url = () => z.url().check(z.maxLength(4096));

const redirectTo = z.object({ redirect_to: url() });

/** docs/passkeys.md "Enrolment", "Passkey first": a password login's or a sign-up's single-use passkey ticket. */
const passkeyEnrolment = z.optional(z.object({ ticket: bounded(1, 2048), expires_in: z.optional(z.int()) }));
export type PasskeyEnrolment = NonNullable<z.infer<typeof passkeyEnrolment>>;

export const loginResponse = z.object({
  redirect_to: z.optional(url()),
  passkey_enrolment: passkeyEnrolment,
  additional_flow: z.optional(
    z.object({
      /** `mfa_totp`, `mfa_sms`, `new_password` or `device_confirmation`; continueLogin maps each by its exact name. */
      next: bounded(1, 64),
      session: bounded(1, 2048),
      /** docs/devices.md: where a device confirmation's code went, the account's address masked (t***@example.com). */
      destination: z.optional(bounded(1, 256)),
    }),
  ),
});
export type LoginResponse = z.infer<typeof loginResponse>;

/**
 * docs/devices.md "The contract": what the site saw of a login (worker/flow/loginContext.ts), in every login call's
 * body while the devices contract is on. `device` is the device credential's digest, never the credential.
 */
export interface LoginContext {
  device?: string;
  country?: string;
  region?: string;
  browser: string;
  os: string;
}

/** A login call's `context`, when there is one. */
export const contextField = (context: LoginContext | undefined) => (context ? { context } : {});

/** product §7: every flow names the user; a later step's username is the login ID the first step was accepted with. */
export type LoginBody =
  // docs/security.md "Leaked passwords": the site found the password on the leaked list; right, it must change.
  | { flow: "email_password"; username: string; password: string; password_leaked?: true }
  | { flow: "mfa_totp" | "mfa_sms" | "device_confirmation"; username: string; session: string; code: string }
  | { flow: "new_password"; username: string; session: string; password: string };

export function login(
  c: AppContext,
  loginChallenge: string,
  deviceId: string,
  body: LoginBody,
  context: LoginContext | undefined,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/login",
    json: { login_challenge: loginChallenge, remember: false, device_id: deviceId, ...body, ...contextField(context) },
    success: [201],
    response: loginResponse,
  });
}

/** docs/devices.md: a new device-confirmation code for the session, the old one void (201; 429 past the upstream's cap). */
export function deviceCodeResend(c: AppContext, loginChallenge: string, session: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/login/device/resend",
    json: { login_challenge: loginChallenge, session },
    success: [201],
    response: z.unknown(),
  });
}

export function registerCheckEmail(c: AppContext, loginChallenge: string, email: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/register/checkEmail",
    json: { login_challenge: loginChallenge, email },
    success: [200, 201],
    response: z.object({ registered: z.boolean() }),
  });
}

export function register(c: AppContext, loginChallenge: string, email: string, password: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/register",
    json: { login_challenge: loginChallenge, flow: "email_password", email, password },
    success: [200, 201],
    response: z.object({ username: bounded(1, 256) }),
  });
}

/** The sign-up's last step: a completed sign-up makes its device known (docs/devices.md), so it carries `context`. */
export function registerConfirm(
  c: AppContext,
  loginChallenge: string,
  username: string,
  code: string,
  context: LoginContext | undefined,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/register/confirm",
    json: { login_challenge: loginChallenge, username, code, remember: false, ...contextField(context) },
    success: [200, 201],
    response: z.object({ ...redirectTo.shape, passkey_enrolment: passkeyEnrolment }),
  });
}

export function registerResend(c: AppContext, loginChallenge: string, username: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/register/confirm/resend",
    json: { login_challenge: loginChallenge, username },
    success: [200, 201],
    response: z.unknown(),
  });
}

/**
 * product §7 password/forgot: mails a reset link (an initiation link when `initiate`, product §8 system transfer).
 * `extra_hook_params` carries only the client's service id from the brand data, which the upstream's mail hook
 * needs for the /{serviceId}/… link; nothing the request sent goes in it.
 */
export function passwordForgot(c: AppContext, clientId: string, username: string, initiate: boolean) {
  const serviceId = serviceIdForClientId(clientId);
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/password/forgot",
    json: { client_id: clientId, username, initiate, extra_hook_params: serviceId ? { service_id: serviceId } : {} },
    success: [201],
    response: z.unknown(),
  });
}

/**
 * product §7 password/confirm: the mailed link's code and username set the new password. `context` (docs/devices.md,
 * "A changed password"): the resetting browser, which the account keeps when it already knew it; every other
 * device is forgotten.
 */
export function passwordConfirm(
  c: AppContext,
  clientId: string,
  username: string,
  newPassword: string,
  code: string,
  context: LoginContext | undefined,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/password/confirm",
    json: { client_id: clientId, username, new_password: newPassword, code, ...contextField(context) },
    success: [201],
    response: z.unknown(),
  });
}

/**
 * The OAuth2 authorization endpoint, asked on the browser's behalf at the app's start (docs/security.md, "Redirects"):
 * with the browser's OAuth2 session and language. Answers where the server sends the browser (its redirect), or a
 * failure: an error status, a time-out, an answer that is no redirect (`malformed`).
 */
export async function authorize(c: AppContext, pathAndQuery: string): Promise<CallResult<{ location: string }>> {
  const headers: Record<string, string> = { Accept: "text/html" };
  const language = c.req.header("accept-language");
  if (language) headers["Accept-Language"] = language;
  const response = await send(c, pathAndQuery, { method: "GET", headers });
  if (!(response instanceof Response)) return response;
  const location = response.headers.get("location");
  if (response.status >= 300 && response.status < 400 && location !== null) {
    await response.body?.cancel();
    return { ok: true, status: response.status, data: { location } };
  }
  // RFC 6749 §5.2's error code of a JSON refusal (RFC 9126 §4: `invalid_request_uri`), as the problem's type.
  let type: string | undefined;
  if (response.status >= 400) type = await oauthErrorCode(response);
  else await response.body?.cancel();
  logEvent("info", "upstream_refused", {
    requestId: c.get("requestId"),
    path: "/oauth2/auth",
    status: response.status,
    type,
  });
  return {
    ok: false,
    status: response.status,
    problem: type === undefined ? {} : { type },
    ...(response.status < 400 ? { unavailable: "malformed" } : {}),
  };
}

/** The `error` of an OAuth2 error body (RFC 6749 §5.2: printable ASCII), or undefined for any other body. */
async function oauthErrorCode(response: Response): Promise<string | undefined> {
  try {
    const { error } = JSON.parse(await response.text()) as { error?: unknown };
    return typeof error === "string" && /^[\x20-\x7e]{1,64}$/.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}

/** product §7 GET login: the upstream's login request, with the authorization request (and its state) behind it. */
export function loginRequest(c: AppContext, loginChallenge: string) {
  return callIdentity(c, {
    method: "GET",
    path: `/auth/v1/login?${new URLSearchParams({ login_challenge: loginChallenge })}`,
    success: [200],
    response: z.object({
      client_id: bounded(1, 256),
      request_url: url(),
      /**
       * docs/operations.md: the pushed operation a login approves, exactly as pushed; absent for a sign-in. Read with
       * forms/authorizationDetails.ts where it is shown (worker/routes/operations.tsx), never passed on.
       */
      authorization_details: z.optional(z.unknown()),
    }),
  });
}

/**
 * docs/operations.md "Calls": the customer declined the login (an operation's 「キャンセル」): the challenge is used up
 * upstream, and `redirect_to` (the authorization endpoint's, as Hydra's reject answers) sends the browser on to the
 * app's redirect URI with `error=access_denied` and its state. `context` as every login call's (docs/devices.md).
 */
export function rejectLogin(
  c: AppContext,
  loginChallenge: string,
  description: string,
  context: LoginContext | undefined,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/login/reject",
    json: {
      login_challenge: loginChallenge,
      error: "access_denied",
      error_description: description,
      ...contextField(context),
    },
    success: [201],
    response: redirectTo,
  });
}

/** product §7 GET consent: what the OAuth2 server asks consent for; the page shows this, never the link's query. */
export function consentRequest(c: AppContext, consentChallenge: string) {
  return callIdentity(c, {
    method: "GET",
    path: `/auth/v1/consent?${new URLSearchParams({ consent_challenge: consentChallenge })}`,
    success: [200],
    response: z.object({
      client_id: bounded(1, 256),
      requested_scope: z.array(bounded(0, 128)).check(z.maxLength(50)),
      /** The user the consent is for, and the login that asked it (absent when a live session skipped the login). */
      subject: bounded(1, 256),
      login_challenge: z.optional(bounded(1, 4096)),
    }),
  });
}

export function acceptConsent(c: AppContext, consentChallenge: string, grantScope: string[], deviceId: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/consent",
    json: { consent_challenge: consentChallenge, grant_scope: grantScope, device_id: deviceId, remember: false },
    success: [200, 201],
    response: z.object({ redirect_to: z.optional(url()) }),
  });
}

export const tokenResponse = z.object({
  access_token: bounded(1, 4096),
  expires_in: z.int().check(z.positive()),
  scope: z.optional(bounded(0, 1024)),
  token_type: bounded(0, 32),
  refresh_token: z.optional(bounded(0, 1024)),
});

export function exchangeCode(
  c: AppContext,
  form: { clientId: string; code: string; redirectUri: string; codeVerifier: string },
) {
  return callIdentity(c, {
    method: "POST",
    path: "/oauth2/token",
    form: {
      grant_type: "authorization_code",
      client_id: form.clientId,
      code: form.code,
      redirect_uri: form.redirectUri,
      code_verifier: form.codeVerifier,
    },
    success: [200],
    response: tokenResponse,
  });
}

export function refreshTokens(c: AppContext, clientId: string, refreshToken: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/oauth2/token",
    form: { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken },
    success: [200],
    response: tokenResponse,
  });
}

/** product §7 logout: the upstream ends its session and revokes what it issued (with the bearer, when there is one). */
export function logout(c: AppContext, accessToken: string | undefined) {
  return callIdentity(c, {
    method: "GET",
    path: "/auth/v1/logout",
    bearer: accessToken,
    success: [200, 204],
    response: z.unknown(),
  });
}

const profileResponse = z.object({
  email_verified: z.boolean(),
  preferred_mfa_setting: z.enum(["totp", "sms", "none"]),
  /** Beyond product §7's two fields: the account's address, which names the authenticator-app entry (MFA setup). */
  email: z.optional(bounded(0, 254)),
});
export type Profile = z.infer<typeof profileResponse>;

export function profile(c: AppContext, accessToken: string) {
  return callIdentity(c, {
    method: "GET",
    path: "/auth/v1/user/profile",
    bearer: accessToken,
    success: [200],
    response: profileResponse,
  });
}

// product §7 account calls: each needs the signed-in user's bearer token (product §6); the answer carries no data.

/** PATCH user/password; `device_id` lets the upstream count a wrong current password like a wrong login (product §9). */
export function changePassword(
  c: AppContext,
  accessToken: string,
  body: { password: string; newPassword: string; deviceId: string },
) {
  return callIdentity(c, {
    method: "PATCH",
    path: "/auth/v1/user/password",
    bearer: accessToken,
    json: { password: body.password, new_password: body.newPassword, device_id: body.deviceId },
    success: [200],
    response: z.unknown(),
  });
}

/** PATCH user/email: the upstream mails a confirmation link to the current address (product §4). */
export function requestEmailChange(c: AppContext, accessToken: string, newEmail: string) {
  return callIdentity(c, {
    method: "PATCH",
    path: "/auth/v1/user/email",
    bearer: accessToken,
    json: { new_email: newEmail },
    success: [200],
    response: z.unknown(),
  });
}

/** POST user/email: a 6-digit code to the address to register (product §2 RegisterEmail). */
export function sendEmailCode(c: AppContext, accessToken: string, email: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/email",
    bearer: accessToken,
    json: { email },
    success: [201],
    response: z.unknown(),
  });
}

/** POST user/email/confirm: the code makes the address the account's, verified. */
export function confirmEmailCode(c: AppContext, accessToken: string, code: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/email/confirm",
    bearer: accessToken,
    json: { code },
    success: [201],
    response: z.unknown(),
  });
}

/**
 * product §7 GET user/email/confirm: a change-e-mail link the user followed. The upstream acts on its token and
 * answers with a redirect to the result page; the outcome is that redirect's address, for the route to check.
 */
export async function followEmailChangeLink(
  c: AppContext,
  link: { token: string; clientId?: string | undefined },
): Promise<CallResult<{ location: string }>> {
  const query = new URLSearchParams({ token: link.token });
  if (link.clientId !== undefined) query.set("client_id", link.clientId);
  let response: Response;
  try {
    response = await upstreamFetch(c, `/auth/v1/user/email/confirm?${query}`, {
      method: "GET",
      headers: { Accept: "application/json" },
    });
  } catch (error) {
    if (!(error instanceof UpstreamUnavailableError)) throw error;
    logEvent("warn", "upstream_unavailable", { requestId: c.get("requestId"), path: "/auth/v1/user/email/confirm" });
    return { ok: false, status: 0, problem: {}, unavailable: error.timedOut ? "timeout" : "unreachable" };
  }
  const location = response.headers.get("Location");
  if (response.status >= 300 && response.status < 400 && location) {
    await response.body?.cancel();
    return { ok: true, status: response.status, data: { location } };
  }
  const problem = problemSchema.safeParse(await response.json().catch(() => undefined));
  logEvent("info", "upstream_refused", {
    requestId: c.get("requestId"),
    path: "/auth/v1/user/email/confirm",
    status: response.status,
  });
  return { ok: false, status: response.status, problem: problem.success ? problem.data : {} };
}

/** A TOTP secret as the identity API issues it: base32 (RFC 4648), as authenticator apps take it. */
export const totpSecretCode = z.string().check(z.regex(/^[A-Z2-7]{16,128}=*$/));

/** product §7 POST user/mfa/setup for TOTP: the secret the authenticator app is given (201). */
export function mfaSetupTotp(c: AppContext, accessToken: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/mfa/setup",
    bearer: accessToken,
    json: { type: "totp" },
    success: [201],
    response: z.object({ secret_code: totpSecretCode }),
  });
}

/** product §7 POST user/mfa/setup for SMS: the upstream texts a code to `phoneNumber` (+81…, product §5) (201). */
export function mfaSetupSms(c: AppContext, accessToken: string, phoneNumber: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/mfa/setup",
    bearer: accessToken,
    json: { type: "sms", phone_number: phoneNumber },
    success: [201],
    response: z.unknown(),
  });
}

/** product §7 POST user/mfa/confirm: the code of the pending setup makes its factor the account's (201). */
export function mfaConfirm(c: AppContext, accessToken: string, type: "totp" | "sms", code: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/mfa/confirm",
    bearer: accessToken,
    json: { type, code },
    success: [201],
    response: z.unknown(),
  });
}
