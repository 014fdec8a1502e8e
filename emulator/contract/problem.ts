import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The identity API's error types; the site maps each to a product §8 message. */
export type ProblemType =
  | "invalid_request"
  | "invalid_credentials"
  | "reject_login"
  | "challenge_not_found"
  | "challenge_expired"
  | "invalid_code"
  | "expired_code"
  | "already_registered"
  | "unauthorized"
  | "insufficient_scope"
  | "invalid_password"
  | "not_found"
  | "not_implemented"
  | "too_many_requests"
  | "setup_pending"
  | "ceremony_expired"
  | "invalid_credential"
  | "credential_exists"
  | "cloned_authenticator"
  | "reauthentication_required"
  | "email_code_required"
  | "new_devices_suspended"
  | "operation_requires_passkey"
  | "operation_requires_second_factor";

/** The one error of the identity API: thrown deep in a handler, answered as `{type, detail}` by onError. */
export class Problem extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: ProblemType,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${type}: ${detail}`);
  }

  toResponse(): Response {
    return Response.json({ type: this.type, detail: this.detail }, { status: this.status, headers: this.headers });
  }

  /** The FIDO2 transport binding's failed `ServerResponse`, as the passkey calls answer (docs/passkeys.md). */
  toServerResponse(): Response {
    return Response.json(
      { status: "failed", errorMessage: this.detail, type: this.type },
      { status: this.status, headers: this.headers },
    );
  }
}

export const problems = {
  invalidCredentials: () => new Problem(401, "invalid_credentials", "Incorrect username or password."),
  rejectLogin: () => new Problem(403, "reject_login", "System transfer in progress"),
  challengeNotFound: (what = "challenge") =>
    new Problem(404, "challenge_not_found", `The ${what} is unknown or was already used.`),
  challengeExpired: (what = "challenge") => new Problem(410, "challenge_expired", `The ${what} has expired.`),
  invalidCode: () => new Problem(400, "invalid_code", "The code is incorrect."),
  /** 400 for the product §7 calls; the passkey registration code answers 410 (docs/passkeys.md). */
  expiredCode: (status: 400 | 410 = 400) => new Problem(status, "expired_code", "The code has expired."),
  alreadyRegistered: () =>
    new Problem(409, "already_registered", "An account with this e-mail address already exists."),
  unauthorized: () => new Problem(401, "unauthorized", "A valid bearer access token is required."),
  insufficientScope: (scope: string) =>
    new Problem(403, "insufficient_scope", `The access token must carry the scope ${scope}.`),
  invalidPassword: () => new Problem(400, "invalid_password", "The current password is incorrect."),
  invalidRequest: (detail: string) => new Problem(400, "invalid_request", detail),
  notFound: (what: string) => new Problem(404, "not_found", `No such ${what}.`),
  /** A passkey ceremony `session` that is unknown, used, expired, or another user's or login challenge's. */
  ceremonyExpired: () =>
    new Problem(410, "ceremony_expired", "The passkey ceremony is unknown, used or expired; start it again."),
  /** 400 at registration (with the reason), 401 at sign-in (one answer for every reason: no enumeration). */
  invalidCredential: (status: 400 | 401, detail = "The passkey could not be verified.") =>
    new Problem(status, "invalid_credential", detail),
  credentialExists: () => new Problem(409, "credential_exists", "This passkey is already registered."),
  clonedAuthenticator: () =>
    new Problem(
      403,
      "cloned_authenticator",
      "The passkey's signature counter did not grow, as from a copy of the authenticator; the passkey is suspended.",
    ),
  reauthenticationRequired: () =>
    new Problem(403, "reauthentication_required", "This needs a sign-in within the last 5 minutes."),
  emailCodeRequired: () =>
    new Problem(403, "email_code_required", "A code mailed to the account's address is required."),
  /** An MFA setup request while an earlier one's SMS is still on its way (contract/limits.ts). */
  setupPending: (retryAfterMs: number) =>
    new Problem(409, "setup_pending", "An SMS code of this setup was sent moments ago; enter it, or retry later.", {
      "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    }),
  /**
   * Logins from devices the account does not know are refused for a while: too many wrong or mailed device codes
   * for the account (contract/limits.ts `deviceCodeWrongAccount`, `sendLimits.deviceCodeAccount`).
   */
  newDevicesSuspended: (retryAfterMs: number) =>
    new Problem(
      429,
      "new_devices_suspended",
      "Too many device codes were wrong or mailed for this account; sign in from a known device or with a passkey, or retry later.",
      { "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    ),
  /**
   * A login that approves a pushed operation (docs/operations.md) is completed by a passkey only: a password, a
   * sign-up and every later step of a password login are refused before anything they carry is checked.
   */
  operationRequiresPasskey: () =>
    new Problem(403, "operation_requires_passkey", "This login approves an operation: only a passkey completes it."),
  /**
   * docs/operations.md: the brand allows the password and a second factor for an operation, and the account has no
   * second factor: only a passkey can approve it. Answered after a right password only.
   */
  operationRequiresSecondFactor: () =>
    new Problem(
      403,
      "operation_requires_second_factor",
      "This login approves an operation: without a second factor, only a passkey completes it.",
    ),
  /** RFC 9110 §10.2.3: Retry-After in whole seconds, rounded up. */
  tooManyRequests: (detail: string, retryAfterMs: number) =>
    new Problem(429, "too_many_requests", detail, {
      "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    }),
};
