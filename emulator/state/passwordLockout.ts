import { passwordLockout } from "../contract/limits";
import type { User } from "./users";

interface DeviceRow extends Record<string, SqlStorageValue> {
  failed_attempts: number;
  locked_until: number;
}

/** One counter of wrong passwords in a row and the time it stays locked until (0: not locked). */
interface Counter {
  failedAttempts: number;
  lockedUntil: number;
}

/**
 * Wrong-password lockout per account and device (contract/limits.ts `passwordLockout`). A device that has
 * completed a login to the account is known: it has a row in `known_devices` with its own counter. Every other
 * device (or a login without `device_id`) shares the account's counter, kept in the user's `failed_attempts` and
 * `locked_until`. So a stranger who types wrong passwords locks out only other strangers, never the owner's
 * devices, and the lock a stranger can cause grows slowly (30 s, doubling) rather than at once to 15 min.
 */
export class PasswordLockout {
  constructor(private readonly sql: SqlStorage) {}

  private knownCounter(username: string, deviceId: string | undefined): Counter | undefined {
    if (deviceId === undefined) return undefined;
    const row = this.sql
      .exec<DeviceRow>(
        "SELECT failed_attempts, locked_until FROM known_devices WHERE username = ? AND device_id = ?",
        username,
        deviceId,
      )
      .toArray()[0];
    return row && { failedAttempts: row.failed_attempts, lockedUntil: row.locked_until };
  }

  private write(username: string, deviceId: string | undefined, counter: Counter, known: boolean): void {
    if (known) {
      this.sql.exec(
        "UPDATE known_devices SET failed_attempts = ?, locked_until = ? WHERE username = ? AND device_id = ?",
        counter.failedAttempts,
        counter.lockedUntil,
        username,
        deviceId ?? "",
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
  isLocked(user: User, deviceId: string | undefined, now: number): boolean {
    const counter = this.knownCounter(user.username, deviceId) ?? user;
    return counter.lockedUntil > now;
  }

  recordFailure(user: User, deviceId: string | undefined, now: number): void {
    const known = this.knownCounter(user.username, deviceId);
    const failedAttempts = (known ?? user).failedAttempts + 1;
    if (known !== undefined) {
      // The owner's own device: the plain rule, and the count starts again after the lock.
      const locks = failedAttempts >= passwordLockout.failures;
      this.write(
        user.username,
        deviceId,
        locks
          ? { failedAttempts: 0, lockedUntil: now + passwordLockout.knownDeviceLock }
          : { failedAttempts, lockedUntil: known.lockedUntil },
        true,
      );
      return;
    }
    // Unknown devices keep counting, so each further wrong password doubles the next lock, up to the cap.
    const beyond = failedAttempts - passwordLockout.failures;
    const lockedUntil =
      beyond < 0
        ? user.lockedUntil
        : now + Math.min(passwordLockout.unknownDevicesFirstLock * 2 ** beyond, passwordLockout.unknownDevicesMaxLock);
    this.write(user.username, deviceId, { failedAttempts, lockedUntil }, false);
  }

  /** The right password resets the counter of the device that typed it (the shared one for an unknown device). */
  recordSuccess(user: User, deviceId: string | undefined): void {
    const known = this.knownCounter(user.username, deviceId) !== undefined;
    this.write(user.username, deviceId, { failedAttempts: 0, lockedUntil: 0 }, known);
  }

  /** A completed login (password and any second factor) makes the device known to the account. */
  rememberDevice(username: string, deviceId: string | undefined): void {
    if (deviceId === undefined) return;
    this.sql.exec(
      "INSERT OR IGNORE INTO known_devices (username, device_id, failed_attempts, locked_until) VALUES (?, ?, 0, 0)",
      username,
      deviceId,
    );
  }

  /** A password reset proves the mailbox: every counter of the account starts again, no device is locked. */
  clear(username: string): void {
    this.sql.exec("UPDATE users SET failed_attempts = 0, locked_until = 0 WHERE username = ?", username);
    this.sql.exec("UPDATE known_devices SET failed_attempts = 0, locked_until = 0 WHERE username = ?", username);
  }
}

/** The login body's `device_id`; an empty one names no device. */
export function deviceOf(deviceId: string | undefined): string | undefined {
  return deviceId === undefined || deviceId === "" ? undefined : deviceId;
}
