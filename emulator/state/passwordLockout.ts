import { passwordLockout } from "../contract/limits";
import type { User } from "./users";

interface CounterRow extends Record<string, SqlStorageValue> {
  failed_attempts: number;
  locked_until: number;
}

/** One counter of wrong passwords in a row and the time it stays locked until (0: not locked). */
interface Counter {
  failedAttempts: number;
  lockedUntil: number;
}

/** A lock that a wrong password has just started: whose, and for how long (ms). */
export interface LockStarted {
  knownDevice: boolean;
  durationMs: number;
}

/**
 * Wrong-password lockout per account and device (contract/limits.ts `passwordLockout`). A device is known when its
 * device credential's digest is bound to the account (devices.ts): its row there holds its own counter. Every
 * other device (a login without `context.device`, or with a digest the account does not know, whatever product §9
 * `device_id` it names) shares the account's counter, kept in the user's `failed_attempts` and `locked_until`. So
 * a stranger who types wrong passwords locks out only other strangers, never the owner's devices, and the lock a
 * stranger can cause grows slowly (30 s, doubling) rather than at once to 15 min.
 */
export class PasswordLockout {
  constructor(private readonly sql: SqlStorage) {}

  private knownCounter(username: string, digest: string | undefined): Counter | undefined {
    if (digest === undefined) return undefined;
    const row = this.sql
      .exec<CounterRow>(
        "SELECT failed_attempts, locked_until FROM devices WHERE username = ? AND digest = ?",
        username,
        digest,
      )
      .toArray()[0];
    return row && { failedAttempts: row.failed_attempts, lockedUntil: row.locked_until };
  }

  private write(username: string, digest: string | undefined, counter: Counter, known: boolean): void {
    if (known) {
      this.sql.exec(
        "UPDATE devices SET failed_attempts = ?, locked_until = ? WHERE username = ? AND digest = ?",
        counter.failedAttempts,
        counter.lockedUntil,
        username,
        digest ?? "",
      );
    } else {
      this.sql.exec(
        "UPDATE users SET failed_attempts = ?, locked_until = ? WHERE username = ?",
        counter.failedAttempts,
        counter.lockedUntil,
        username,
      );
    }
  }

  /** While true, this device's attempt is refused without looking at the password. */
  isLocked(user: User, digest: string | undefined, now: number): boolean {
    const counter = this.knownCounter(user.username, digest) ?? user;
    return counter.lockedUntil > now;
  }

  /** Counts a wrong password; answers the lock it starts, if it starts one (the account is mailed). */
  recordFailure(user: User, digest: string | undefined, now: number): LockStarted | undefined {
    const known = this.knownCounter(user.username, digest);
    const failedAttempts = (known ?? user).failedAttempts + 1;
    if (known !== undefined) {
      // The owner's own device: the plain rule, and the count starts again after the lock.
      const locks = failedAttempts >= passwordLockout.failures;
      this.write(
        user.username,
        digest,
        locks
          ? { failedAttempts: 0, lockedUntil: now + passwordLockout.knownDeviceLock }
          : { failedAttempts, lockedUntil: known.lockedUntil },
        true,
      );
      return locks ? { knownDevice: true, durationMs: passwordLockout.knownDeviceLock } : undefined;
    }
    // Unknown devices keep counting, so each further wrong password doubles the next lock, up to the cap.
    const beyond = failedAttempts - passwordLockout.failures;
    const durationMs =
      beyond < 0
        ? undefined
        : Math.min(passwordLockout.unknownDevicesFirstLock * 2 ** beyond, passwordLockout.unknownDevicesMaxLock);
    const lockedUntil = durationMs === undefined ? user.lockedUntil : now + durationMs;
    this.write(user.username, digest, { failedAttempts, lockedUntil }, false);
    return durationMs === undefined ? undefined : { knownDevice: false, durationMs };
  }

  /** The right password resets the counter of the device that typed it (the shared one for an unknown device). */
  recordSuccess(user: User, digest: string | undefined): void {
    const known = this.knownCounter(user.username, digest) !== undefined;
    this.write(user.username, digest, { failedAttempts: 0, lockedUntil: 0 }, known);
  }

  /** A password reset proves the mailbox: every counter of the account starts again, no device is locked. */
  clear(username: string): void {
    this.sql.exec("UPDATE users SET failed_attempts = 0, locked_until = 0 WHERE username = ?", username);
    this.sql.exec("UPDATE devices SET failed_attempts = 0, locked_until = 0 WHERE username = ?", username);
  }
}
