import type { Browser, OperatingSystem, Whereabouts } from "../contract/loginContext";

/** A device known to an account: a device credential (by its digest) that completed a sign-in to it. */
export interface Device extends Whereabouts {
  /** The emulator's own id for it, the one the API answers; the digest is never answered. */
  id: string;
  username: string;
  digest: string;
  firstUsedAt: number;
  lastUsedAt: number;
}

interface DeviceRow extends Record<string, SqlStorageValue> {
  id: string;
  username: string;
  digest: string;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  first_used_at: number;
  last_used_at: number;
}

function fromRow(row: DeviceRow): Device {
  return {
    id: row.id,
    username: row.username,
    digest: row.digest,
    browser: row.browser as Browser,
    os: row.os as OperatingSystem,
    country: row.country,
    region: row.region,
    firstUsedAt: row.first_used_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * The devices of each account (docs/devices.md): a digest becomes known to the account when a login from it
 * completes, and stays known, through sign-outs, until the account forgets it. The same rows hold each known
 * device's wrong-password counter (passwordLockout.ts).
 */
export class Devices {
  constructor(private readonly sql: SqlStorage) {}

  ofDigest(username: string, digest: string): Device | undefined {
    const row = this.sql
      .exec<DeviceRow>("SELECT * FROM devices WHERE username = ? AND digest = ?", username, digest)
      .toArray()[0];
    return row && fromRow(row);
  }

  /** By its public id, only among this account's devices: another account's id is as unknown as none. */
  ofAccount(username: string, id: string): Device | undefined {
    const row = this.sql
      .exec<DeviceRow>("SELECT * FROM devices WHERE username = ? AND id = ?", username, id)
      .toArray()[0];
    return row && fromRow(row);
  }

  /**
   * The account whose sign-in from `digest` completed last, of those that know the device (docs/operations.md: whose
   * history an operation's cancel goes into); undefined when none knows it.
   */
  lastAccountOf(digest: string): string | undefined {
    return this.sql
      .exec<{ username: string }>(
        "SELECT username FROM devices WHERE digest = ? ORDER BY last_used_at DESC, rowid DESC LIMIT 1",
        digest,
      )
      .toArray()[0]?.username;
  }

  /** Newest use first. */
  listOf(username: string): Device[] {
    return this.sql
      .exec<DeviceRow>("SELECT * FROM devices WHERE username = ? ORDER BY last_used_at DESC, rowid DESC", username)
      .toArray()
      .map(fromRow);
  }

  /**
   * A completed sign-in from `digest`: the device becomes known (as `newId`, a random id the caller draws), or its
   * last use and whereabouts move on.
   */
  bind(username: string, digest: string, seen: Whereabouts, now: number, newId: string): Device {
    const known = this.ofDigest(username, digest);
    if (known !== undefined) {
      this.sql.exec(
        "UPDATE devices SET browser = ?, os = ?, country = ?, region = ?, last_used_at = ? WHERE id = ?",
        seen.browser,
        seen.os,
        seen.country,
        seen.region,
        now,
        known.id,
      );
      return { ...known, ...seen, lastUsedAt: now };
    }
    const device: Device = { id: newId, username, digest, ...seen, firstUsedAt: now, lastUsedAt: now };
    this.sql.exec(
      `INSERT INTO devices (id, username, digest, browser, os, country, region, first_used_at, last_used_at,
        failed_attempts, locked_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
      device.id,
      username,
      digest,
      device.browser,
      device.os,
      device.country,
      device.region,
      now,
      now,
    );
    return device;
  }

  /** The account forgets the device: its next sign-in is confirmed again, and its wrong-password counter goes. */
  forget(username: string, id: string): void {
    this.sql.exec("DELETE FROM devices WHERE username = ? AND id = ?", username, id);
  }
}
