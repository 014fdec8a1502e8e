import type { AuthorizationDetails } from "../../forms/authorizationDetails";
import type { Acr, Authentication, SignInMethod } from "../contract/authentication";
import type { AuthorizationRequest } from "../contract/authorizationRequest";
import { maxWrongCodes } from "../contract/limits";
import type { LoginContext } from "../contract/loginContext";
import { problems } from "../contract/problem";

/**
 * Every single-use, expiring thing the emulator hands out, by kind: challenges, verifiers,
 * sessions, codes and tokens. A used ticket is kept (not deleted) so reuse is told apart from
 * an id that never existed (a reused authorization code revokes what it issued); both answer
 * "not found". A revoked token is a used ticket. A ticket that has taken `maxWrongCodes` wrong
 * codes is dead and answers as expired (contract/limits.ts).
 *
 * `browserSession` is the id of the browser session (the session cookie) whose login a grant came
 * from; logout revokes the refresh tokens that carry it. `code` is the authorization code a chain of
 * tokens began with; presenting that code again revokes the chain (RFC 6749 §4.1.2). `login` is what the login
 * behind a grant achieved and when (acr, amr, auth_time): the browser session, the consent, the code and the refresh
 * tokens keep it, so a remembered login or a refresh never claims more than that login did. `device` is the device
 * credential's digest the login came from (docs/devices.md): the login verifier hands it to the browser session, and
 * signing the device out ends the sessions that carry it and every token issued through them.
 */
export interface TicketKinds {
  /**
   * A pushed authorization request (RFC 9126), by its whole `request_uri`: the request as `/oauth2/auth` will run it,
   * its operation included (docs/operations.md). Used by its first presentation, right or wrong.
   */
  pushed_request: AuthorizationRequest;
  login_challenge: AuthorizationRequest;
  login_verifier: {
    request: AuthorizationRequest;
    username: string;
    remember: boolean;
    loginChallenge: string;
    login: Authentication;
    device?: string | undefined;
  };
  /**
   * A login's next step after the password, in the order of docs/devices.md ("The step order"): the second factor,
   * the device's code, a new password. `context` is the site's login context of the password step: every later step
   * is held to its device. `method` is what the login has passed so far, `deviceConfirmed` whether its device code
   * was right, `passwordLeaked` whether the site found the password on the leaked list (it must change once every
   * factor has passed; nothing on the account changes before).
   */
  login_session: {
    challenge: string;
    username: string;
    remember: boolean;
    context?: LoginContext | undefined;
    next: "mfa_totp" | "mfa_sms" | "device_confirmation" | "new_password";
    method: Exclude<SignInMethod, "passkey">;
    deviceConfirmed?: boolean;
    passwordLeaked?: boolean;
  };
  /**
   * A login the login UI rejected (`POST /auth/v1/login/reject`, as Hydra's reject), by the `login_verifier` of its
   * `redirect_to`: the authorization endpoint sends the browser to the request's redirect URI with this error.
   */
  login_rejection: { request: AuthorizationRequest; error: "access_denied"; description: string };
  sms_login_code: { code: string };
  /** The mailed code of a device confirmation, by its login `session`; a resend replaces it. */
  device_code: { code: string };
  /** `loginChallenge`: the login whose acceptance asked this consent; absent when the browser session skipped login. */
  consent_challenge: {
    request: AuthorizationRequest;
    username: string;
    browserSession: string;
    login: Authentication;
    loginChallenge?: string | undefined;
  };
  consent_verifier: {
    request: AuthorizationRequest;
    username: string;
    grantedScope: string;
    browserSession: string;
    login: Authentication;
  };
  browser_session: { username: string; login: Authentication; device?: string | undefined };
  authorization_code: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    username: string;
    scope: string;
    nonce?: string | undefined;
    browserSession: string;
    login: Authentication;
    /** The approved operation's details, exactly as pushed: the token response carries them (docs/operations.md). */
    authorizationDetails?: AuthorizationDetails | undefined;
  };
  /** An issued access token, by its `jti`: the bearer check refuses one that is revoked (used) or unknown. */
  access_token: { code: string; browserSession: string };
  refresh_token: {
    clientId: string;
    username: string;
    scope: string;
    code: string;
    browserSession: string;
    login: Authentication;
  };
  signup_code: { code: string };
  /** The password a sign-up chose, by `signUpPasswordId`: it takes effect only when that sign-up confirms. */
  signup_password: { passwordHash: string };
  reset_code: { code: string };
  email_register_code: { code: string; email: string };
  email_change: { stage: "old" | "new"; username: string; newEmail: string; clientId: string };
  /** One pending setup per user (the ticket id is the username); `sentAt` is when its SMS went out. */
  mfa_setup: { type: "totp"; secret: string } | { type: "sms"; phone: string; code: string; sentAt: number };
  /** The code mailed before a passkey is added after a password sign-in; one per account (the id is the username). */
  passkey_registration_code: { code: string };
  /** A registration ceremony's `session`: its challenge, for this one user and their user handle. */
  passkey_registration: { username: string; challenge: string; userHandle: string };
  /** A sign-in ceremony's `session`: its challenge, for this one login challenge. */
  passkey_assertion: { loginChallenge: string; challenge: string };
  /**
   * A passkey enrolment ticket, by its random id: who may add one passkey without a bearer token. `acr` is the login's
   * that issued it, and "a password login never claims `phr`" (docs/passkeys.md). `emailProven`: a sign-up's ticket,
   * issued as the mailed sign-up code was confirmed, stands in for the registration code; a login's never does.
   */
  passkey_enrolment: {
    username: string;
    acr: Exclude<Acr, "phr">;
    emailProven?: boolean;
    /** The login's client and device (its credential's digest), which the 「パスキーが登録されました」 notice names. */
    clientId?: string;
    device?: string | undefined;
  };
  /**
   * The emulator's sample app (routes/sampleApp.ts), by the `state` of its push: the PKCE verifier, the details it
   * pushed and the client it pushed as, which its callback exchanges with and compares. An app's server keeps them in
   * its own session.
   */
  sample_app_push: { codeVerifier: string; details: AuthorizationDetails; redirectUri: string; clientId: string };
}

/** The kinds whose data carries `login`: an emulator older than acr/amr left some without it (state/store.ts). */
export const ticketKindsWithLogin = [
  "login_verifier",
  "consent_challenge",
  "consent_verifier",
  "browser_session",
  "authorization_code",
  "refresh_token",
] as const satisfies readonly TicketKind[];

export type TicketKind = keyof TicketKinds;

export type TicketLookup<K extends TicketKind> =
  | { status: "valid"; data: TicketKinds[K] }
  | { status: "expired"; data: TicketKinds[K] }
  | { status: "missing" };

interface TicketRow extends Record<string, SqlStorageValue> {
  data: string;
  expires_at: number;
  used_at: number | null;
  failures: number;
}

export class Tickets {
  constructor(private readonly sql: SqlStorage) {}

  /** Stores a ticket; reusing an id (one code per user and purpose) replaces the earlier one and its count. */
  issue<K extends TicketKind>(kind: K, id: string, data: TicketKinds[K], expiresAt: number): string {
    this.sql.exec(
      "INSERT OR REPLACE INTO tickets (kind, id, data, expires_at, used_at, failures) VALUES (?, ?, ?, ?, NULL, 0)",
      kind,
      id,
      JSON.stringify(data),
      expiresAt,
    );
    return id;
  }

  find<K extends TicketKind>(kind: K, id: string, now: number): TicketLookup<K> {
    const row = this.sql
      .exec<TicketRow>("SELECT data, expires_at, used_at, failures FROM tickets WHERE kind = ? AND id = ?", kind, id)
      .toArray()[0];
    if (row === undefined || row.used_at !== null) return { status: "missing" };
    const data = JSON.parse(row.data) as TicketKinds[K];
    const dead = row.expires_at <= now || row.failures >= maxWrongCodes;
    return dead ? { status: "expired", data } : { status: "valid", data };
  }

  consume(kind: TicketKind, id: string, now: number): void {
    this.sql.exec("UPDATE tickets SET used_at = ? WHERE kind = ? AND id = ?", now, kind, id);
  }

  /** A live ticket lives on until `expiresAt`, keeping its count of wrong codes. */
  renew(kind: TicketKind, id: string, expiresAt: number): void {
    this.sql.exec(
      "UPDATE tickets SET expires_at = ? WHERE kind = ? AND id = ? AND used_at IS NULL",
      expiresAt,
      kind,
      id,
    );
  }

  /** What a ticket ever issued says, live, used, expired or dead alike. */
  dataOf<K extends TicketKind>(kind: K, id: string): TicketKinds[K] | undefined {
    const row = this.sql
      .exec<{ data: string }>("SELECT data FROM tickets WHERE kind = ? AND id = ?", kind, id)
      .toArray()[0];
    return row && (JSON.parse(row.data) as TicketKinds[K]);
  }

  /** A ticket that existed and was used (or revoked), as opposed to one never issued. */
  wasUsed(kind: TicketKind, id: string): boolean {
    return (
      this.sql.exec("SELECT 1 FROM tickets WHERE kind = ? AND id = ? AND used_at IS NOT NULL", kind, id).toArray()
        .length > 0
    );
  }

  /** RFC 6749 §4.1.2: a reused authorization code revokes the access and refresh tokens issued from it. */
  revokeTokensFromCode(code: string, now: number): void {
    this.sql.exec(
      `UPDATE tickets SET used_at = ? WHERE kind IN ('access_token', 'refresh_token') AND used_at IS NULL
        AND json_extract(data, '$.code') = ?`,
      now,
      code,
    );
  }

  /** Logout ends a browser session: the refresh tokens of the logins made in it stop working. */
  revokeRefreshTokensOfSession(browserSession: string, now: number): void {
    this.sql.exec(
      `UPDATE tickets SET used_at = ? WHERE kind = 'refresh_token' AND used_at IS NULL
        AND json_extract(data, '$.browserSession') = ?`,
      now,
      browserSession,
    );
  }

  /** Every browser session the account ever had, live or not, with the device digest its login came from. */
  browserSessionsOf(username: string): { id: string; device: string | undefined }[] {
    return this.sql
      .exec<{ id: string; device: string | null }>(
        `SELECT id, json_extract(data, '$.device') AS device FROM tickets WHERE kind = 'browser_session'
          AND json_extract(data, '$.username') = ?`,
        username,
      )
      .toArray()
      .map((row) => ({ id: row.id, device: row.device ?? undefined }));
  }

  /** Whether a browser session, or a refresh token issued through it, is still good. */
  sessionSignedIn(browserSession: string, now: number): boolean {
    return (
      this.sql
        .exec(
          `SELECT 1 FROM tickets WHERE used_at IS NULL AND expires_at > ? AND failures < ?
            AND ((kind = 'browser_session' AND id = ?)
              OR (kind = 'refresh_token' AND json_extract(data, '$.browserSession') = ?))`,
          now,
          maxWrongCodes,
          browserSession,
          browserSession,
        )
        .toArray().length > 0
    );
  }

  /**
   * Signs a device out (docs/devices.md): the browser sessions end, and with them everything issued through them
   * that is still good: consents and their verifiers, authorization codes, access and refresh tokens. The bearer
   * check refuses such an access token at once.
   */
  endBrowserSessions(browserSessions: readonly string[], now: number): void {
    for (const id of browserSessions) {
      this.consume("browser_session", id, now);
      this.sql.exec(
        `UPDATE tickets SET used_at = ? WHERE used_at IS NULL AND kind IN
          ('consent_challenge', 'consent_verifier', 'authorization_code', 'access_token', 'refresh_token')
          AND json_extract(data, '$.browserSession') = ?`,
        now,
        id,
      );
    }
  }

  /** Login verifiers not yet redeemed, of this account, whose login came from one of `devices`: they go too. */
  revokePendingLogins(username: string, isRevoked: (device: string | undefined) => boolean, now: number): void {
    const pending = this.sql
      .exec<{ id: string; device: string | null }>(
        `SELECT id, json_extract(data, '$.device') AS device FROM tickets WHERE kind = 'login_verifier'
          AND used_at IS NULL AND json_extract(data, '$.username') = ?`,
        username,
      )
      .toArray();
    for (const row of pending) if (isRevoked(row.device ?? undefined)) this.consume("login_verifier", row.id, now);
  }

  /** The logins of this account between their steps (but `except`): they go, and their codes with them. */
  revokeLoginSessions(username: string, except: string | undefined, now: number): void {
    this.sql.exec(
      `UPDATE tickets SET used_at = ? WHERE kind = 'login_session' AND used_at IS NULL
        AND json_extract(data, '$.username') = ? AND id <> ?`,
      now,
      username,
      except ?? "",
    );
  }

  /**
   * Counts a wrong code against the code or session guessed at, or a failed passkey assertion against its login
   * challenge; the `maxWrongCodes`-th one kills it.
   */
  recordWrongCode(kind: TicketKind, id: string): void {
    this.sql.exec("UPDATE tickets SET failures = failures + 1 WHERE kind = ? AND id = ?", kind, id);
  }
}

/** A challenge, verifier or session that must be live: unknown or used → 404, expired → 410. */
export function requireLive<K extends TicketKind>(
  tickets: Tickets,
  kind: K,
  id: string,
  now: number,
  what: string,
): TicketKinds[K] {
  const found = tickets.find(kind, id, now);
  if (found.status === "missing") throw problems.challengeNotFound(what);
  if (found.status === "expired") throw problems.challengeExpired(what);
  return found.data;
}

/**
 * Checks a 6-digit code held by a ticket and uses the ticket up when it matches. A wrong code counts against
 * the ticket: after `maxWrongCodes` of them it answers expired_code until a new code is issued.
 */
export function redeemCode<
  K extends "signup_code" | "reset_code" | "email_register_code" | "passkey_registration_code",
>(tickets: Tickets, kind: K, id: string, code: string, now: number, expiredStatus: 400 | 410 = 400): TicketKinds[K] {
  const found = tickets.find(kind, id, now);
  if (found.status === "missing") throw problems.invalidCode();
  if (found.status === "expired") throw problems.expiredCode(expiredStatus);
  if (!sameCode(found.data.code, code)) {
    tickets.recordWrongCode(kind, id);
    throw problems.invalidCode();
  }
  tickets.consume(kind, id, now);
  return found.data;
}

export function sameCode(expected: string, given: string): boolean {
  let difference = expected.length ^ given.length;
  for (let index = 0; index < expected.length; index += 1)
    difference |= expected.charCodeAt(index) ^ given.charCodeAt(index);
  return difference === 0;
}
