import type { SendLimit } from "../contract/limits";

/** What a send was for, so each purpose has its own limit (contract/limits.ts `sendLimits`). */
export type SendPurpose =
  | "sign_up_resend"
  | "password_mail"
  | "email_register_code"
  | "email_change_mail"
  | "mfa_setup_sms"
  | "passkey_registration_code"
  | "device_code"
  | "device_code_account"
  | "device_code_wrong"
  | "new_devices_suspended_notice";

export type SendDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * The mails sent on request, and the wrong device codes an account took, per purpose and user, for the
 * sliding-window limits of contract/limits.ts. Only sends that were allowed are logged, so refused requests do not
 * push the window further out.
 */
export class SendLog {
  constructor(private readonly sql: SqlStorage) {}

  /** Logs one more send when it stays within `limit` over the window ending now; else says when one frees up. */
  take(purpose: SendPurpose, subject: string, limit: SendLimit, now: number): SendDecision {
    const decision = this.check(purpose, subject, limit, now);
    if (decision.allowed) this.log(purpose, subject, now);
    return decision;
  }

  /** Whether one more would stay within `limit` over the window ending now, logging nothing. */
  check(purpose: SendPurpose, subject: string, limit: SendLimit, now: number): SendDecision {
    const since = now - limit.windowMs;
    const recent = this.sql
      .exec<{ sent_at: number }>(
        "SELECT sent_at FROM sends WHERE purpose = ? AND subject = ? AND sent_at > ? ORDER BY sent_at DESC",
        purpose,
        subject,
        since,
      )
      .toArray();
    const oldestCounted = recent[limit.count - 1];
    if (oldestCounted !== undefined) return { allowed: false, retryAfterMs: oldestCounted.sent_at - since };
    return { allowed: true };
  }

  /** Logs one event whatever the limit says: a wrong device code counts even once the account is suspended. */
  log(purpose: SendPurpose, subject: string, now: number): void {
    this.sql.exec("INSERT INTO sends (purpose, subject, sent_at) VALUES (?, ?, ?)", purpose, subject, now);
  }
}
