import type { AuthorizationDetailsType } from "../../forms/authorizationDetails";
import type { SignInMethod } from "../contract/authentication";
import { lifetimes } from "../contract/lifetimes";
import type { Browser, OperatingSystem } from "../contract/loginContext";

export type SignInResult = "success" | "refused" | "cancelled";

/** One row of an account's sign-in history (docs/devices.md, `GET /auth/v1/user/signins`). */
export interface SignIn {
  username: string;
  at: number;
  method: SignInMethod;
  browser: Browser;
  os: OperatingSystem;
  country: string | null;
  region: string | null;
  /** The service of the client the login came through. */
  serviceId: string | null;
  /**
   * `cancelled`: an operation's login the customer declined (`POST /auth/v1/login/reject`, docs/operations.md); a
   * sign-in is never recorded so.
   */
  result: SignInResult;
  /** The public id of the account's device the sign-in came from, when the account knew it then. */
  deviceId: string | null;
  /** The device credential's digest, kept only to answer `this_device`; never answered itself. */
  digest: string | null;
  /**
   * The type of the operation a passkey approved or was refused for, or whose login was cancelled
   * (docs/operations.md); null for a sign-in.
   */
  operation: AuthorizationDetailsType | null;
}

interface SignInRow extends Record<string, SqlStorageValue> {
  username: string;
  at: number;
  method: string;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  service_id: string | null;
  result: string;
  device_id: string | null;
  digest: string | null;
  operation: string | null;
}

function fromRow(row: SignInRow): SignIn {
  return {
    username: row.username,
    at: row.at,
    method: row.method as SignInMethod,
    browser: row.browser as Browser,
    os: row.os as OperatingSystem,
    country: row.country,
    region: row.region,
    serviceId: row.service_id,
    result: row.result === "success" || row.result === "cancelled" ? row.result : "refused",
    deviceId: row.device_id,
    digest: row.digest,
    operation: row.operation as AuthorizationDetailsType | null,
  };
}

/**
 * Every sign-in that carried the site's login context, accepted or refused, kept `lifetimes.signInHistory` (90
 * days): what the customer sees on /security, and what the device policy's country rule compares with.
 */
export class SignIns {
  constructor(private readonly sql: SqlStorage) {}

  record(signIn: SignIn): void {
    this.sql.exec("DELETE FROM signins WHERE at <= ?", signIn.at - lifetimes.signInHistory);
    this.sql.exec(
      `INSERT INTO signins
        (username, at, method, browser, os, country, region, service_id, result, device_id, digest, operation)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      signIn.username,
      signIn.at,
      signIn.method,
      signIn.browser,
      signIn.os,
      signIn.country,
      signIn.region,
      signIn.serviceId,
      signIn.result,
      signIn.deviceId,
      signIn.digest,
      signIn.operation,
    );
  }

  /** The last 90 days by the emulator clock, newest first. */
  listOf(username: string, now: number): SignIn[] {
    return this.sql
      .exec<SignInRow>(
        "SELECT * FROM signins WHERE username = ? AND at > ? ORDER BY at DESC, id DESC",
        username,
        now - lifetimes.signInHistory,
      )
      .toArray()
      .map(fromRow);
  }

  /** Whether the account signed in successfully within the last 90 days, and whether from `country`. */
  recentSuccesses(username: string, country: string | undefined, now: number): { any: boolean; fromCountry: boolean } {
    const rows = this.sql
      .exec<{ any: number; from_country: number }>(
        `SELECT COUNT(*) AS any, COUNT(CASE WHEN country = ? THEN 1 END) AS from_country FROM signins
          WHERE username = ? AND result = 'success' AND at > ?`,
        country ?? null,
        username,
        now - lifetimes.signInHistory,
      )
      .toArray();
    const counts = rows[0] ?? { any: 0, from_country: 0 };
    return { any: counts.any > 0, fromCountry: counts.from_country > 0 };
  }
}
