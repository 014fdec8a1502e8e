export type MfaSetting = "totp" | "sms" | "none";

export interface User {
  username: string;
  email: string;
  passwordHash: string;
  emailVerified: boolean;
  confirmed: boolean;
  mfaType: MfaSetting;
  totpSecret: string | null;
  phone: string | null;
  forceChangePassword: boolean;
  transferInProgress: boolean;
  failedAttempts: number;
  lockedUntil: number;
  createdAt: number;
  /**
   * docs/devices.md, "A login without context": the API holds this account to the devices contract, so a login that
   * carries no `context` is a new device's. Off only for an account seeded as an API without the contract keeps it
   * (a site whose DEVICE_CONFIRMATION is off sends no context, and such an API asks nothing of it).
   */
  deviceContract: boolean;
}

interface UserRow extends Record<string, SqlStorageValue> {
  username: string;
  email: string;
  password_hash: string;
  email_verified: number;
  confirmed: number;
  mfa_type: string;
  totp_secret: string | null;
  phone: string | null;
  force_change_password: number;
  transfer_in_progress: number;
  failed_attempts: number;
  locked_until: number;
  created_at: number;
  device_contract: number;
}

function fromRow(row: UserRow): User {
  return {
    username: row.username,
    email: row.email,
    passwordHash: row.password_hash,
    emailVerified: row.email_verified === 1,
    confirmed: row.confirmed === 1,
    mfaType: row.mfa_type === "totp" || row.mfa_type === "sms" ? row.mfa_type : "none",
    totpSecret: row.totp_secret,
    phone: row.phone,
    forceChangePassword: row.force_change_password === 1,
    transferInProgress: row.transfer_in_progress === 1,
    failedAttempts: row.failed_attempts,
    lockedUntil: row.locked_until,
    createdAt: row.created_at,
    deviceContract: row.device_contract === 1,
  };
}

const columns: Record<keyof User, string> = {
  username: "username",
  email: "email",
  passwordHash: "password_hash",
  emailVerified: "email_verified",
  confirmed: "confirmed",
  mfaType: "mfa_type",
  totpSecret: "totp_secret",
  phone: "phone",
  forceChangePassword: "force_change_password",
  transferInProgress: "transfer_in_progress",
  failedAttempts: "failed_attempts",
  lockedUntil: "locked_until",
  createdAt: "created_at",
  deviceContract: "device_contract",
};

function toColumnValue(value: User[keyof User]): SqlStorageValue {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}

/** A freshly signed-up user: unconfirmed until the mailed code comes back. */
export function newUser(username: string, email: string, passwordHash: string, now: number): User {
  return {
    username,
    email,
    passwordHash,
    emailVerified: false,
    confirmed: false,
    mfaType: "none",
    totpSecret: null,
    phone: null,
    forceChangePassword: false,
    transferInProgress: false,
    failedAttempts: 0,
    lockedUntil: 0,
    createdAt: now,
    deviceContract: true,
  };
}

export class Users {
  constructor(private readonly sql: SqlStorage) {}

  byUsername(username: string): User | undefined {
    const row = this.sql.exec<UserRow>("SELECT * FROM users WHERE username = ?", username).toArray()[0];
    return row && fromRow(row);
  }

  byEmail(email: string): User | undefined {
    const row = this.sql.exec<UserRow>("SELECT * FROM users WHERE email = ? COLLATE NOCASE", email).toArray()[0];
    return row && fromRow(row);
  }

  /** The sign-in form takes either the e-mail or the login ID (username). */
  byLoginId(loginId: string): User | undefined {
    return this.byEmail(loginId) ?? this.byUsername(loginId);
  }

  insert(user: User): void {
    const keys = Object.keys(columns) as (keyof User)[];
    this.sql.exec(
      `INSERT INTO users (${keys.map((key) => columns[key]).join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`,
      ...keys.map((key) => toColumnValue(user[key])),
    );
  }

  /** Drops a sign-up that never confirmed this address, if there is one. */
  removeUnconfirmed(email: string): void {
    this.sql.exec("DELETE FROM users WHERE email = ? COLLATE NOCASE AND confirmed = 0", email);
  }

  update(username: string, changes: Partial<Omit<User, "username">>): void {
    const entries = Object.entries(changes) as [Exclude<keyof User, "username">, User[keyof User]][];
    if (entries.length === 0) return;
    this.sql.exec(
      `UPDATE users SET ${entries.map(([key]) => `${columns[key]} = ?`).join(", ")} WHERE username = ?`,
      ...entries.map(([, value]) => toColumnValue(value)),
      username,
    );
  }
}
