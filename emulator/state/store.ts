import { ticketKindsWithLogin } from "./tickets";

/** The emulator's SQLite schema; every table lives in the one "global" Durable Object. */
const schema = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS users (
    username TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    email_verified INTEGER NOT NULL,
    confirmed INTEGER NOT NULL,
    mfa_type TEXT NOT NULL,
    totp_secret TEXT,
    phone TEXT,
    force_change_password INTEGER NOT NULL,
    transfer_in_progress INTEGER NOT NULL,
    failed_attempts INTEGER NOT NULL,
    locked_until INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    device_contract INTEGER NOT NULL DEFAULT 1
  )`,
  `CREATE TABLE IF NOT EXISTS tickets (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    failures INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, id)
  )`,
  // A device known to an account (devices.ts): the digest of a device credential that completed a sign-in to it,
  // by a public `id` of the emulator's; with the device's own wrong-password counter (passwordLockout.ts).
  `CREATE TABLE IF NOT EXISTS devices (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    digest TEXT NOT NULL,
    browser TEXT NOT NULL,
    os TEXT NOT NULL,
    country TEXT,
    region TEXT,
    first_used_at INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL,
    failed_attempts INTEGER NOT NULL,
    locked_until INTEGER NOT NULL,
    UNIQUE (username, digest)
  )`,
  // The sign-in history (signIns.ts): every sign-in that carried the site's login context, for 90 days; `operation` is
  // the type of an operation a passkey approved or was refused for (docs/operations.md), else null.
  `CREATE TABLE IF NOT EXISTS signins (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL,
    at INTEGER NOT NULL,
    method TEXT NOT NULL,
    browser TEXT NOT NULL,
    os TEXT NOT NULL,
    country TEXT,
    region TEXT,
    service_id TEXT,
    result TEXT NOT NULL,
    device_id TEXT,
    digest TEXT,
    operation TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS signins_by_username ON signins (username, at)`,
  `CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    to_addr TEXT NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    code TEXT,
    link TEXT,
    sent_at INTEGER NOT NULL
  )`,
  // Mails sent on request, for the per-user limits of contract/limits.ts (sendLog.ts).
  `CREATE TABLE IF NOT EXISTS sends (
    purpose TEXT NOT NULL,
    subject TEXT NOT NULL,
    sent_at INTEGER NOT NULL
  )`,
  // Passkeys (passkeys.ts): one row per credential, by its base64url credential id; `public_key` is the base64url
  // COSE key, `transports` a JSON array, `user_handle` the account's handle the authenticator keeps with it.
  `CREATE TABLE IF NOT EXISTS passkeys (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    user_handle TEXT NOT NULL,
    public_key TEXT NOT NULL,
    counter INTEGER NOT NULL,
    transports TEXT NOT NULL,
    aaguid TEXT NOT NULL,
    name TEXT,
    backed_up INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    suspended INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS passkeys_by_username ON passkeys (username)`,
  // The WebAuthn user handle of each account that began a passkey registration: one for all its passkeys.
  `CREATE TABLE IF NOT EXISTS passkey_user_handles (
    username TEXT PRIMARY KEY,
    user_handle TEXT NOT NULL UNIQUE
  )`,
  // The range API's added passwords, by SHA-1, and the range requests received (breachedPasswords.ts).
  `CREATE TABLE IF NOT EXISTS breached_passwords (hash TEXT PRIMARY KEY, count INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS range_requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL,
    headers TEXT NOT NULL,
    body_bytes INTEGER NOT NULL,
    received_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    method TEXT NOT NULL,
    path_pattern TEXT NOT NULL,
    remaining INTEGER NOT NULL,
    spec TEXT NOT NULL
  )`,
];

/** Columns added after their table first shipped: state kept by an older emulator (`.wrangler/state`) gains them. */
const addedColumns: [table: string, column: string, definition: string][] = [
  ["tickets", "failures", "INTEGER NOT NULL DEFAULT 0"],
  ["users", "device_contract", "INTEGER NOT NULL DEFAULT 1"],
  ["signins", "operation", "TEXT"],
];

export function migrate(sql: SqlStorage): void {
  // Devices an older emulator knew by product §9's device_id, which proves nothing (docs/devices.md): they go, and the
  // owner's next sign-in binds the device credential instead.
  sql.exec("DROP TABLE IF EXISTS known_devices");
  for (const statement of schema) sql.exec(statement);
  for (const [table, column, definition] of addedColumns) {
    const present = sql.exec("SELECT name FROM pragma_table_info(?) WHERE name = ?", table, column).toArray();
    if (present.length === 0) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
  // Sessions, codes and tokens an older emulator issued do not say what their login achieved (acr, amr,
  // auth_time); none may claim anything, so they go: the browser signs in again.
  sql.exec(
    `DELETE FROM tickets WHERE kind IN (${ticketKindsWithLogin.map(() => "?").join(", ")})
      AND json_extract(data, '$.login') IS NULL`,
    ...ticketKindsWithLogin,
  );
}

const resetTables = [
  "users",
  "devices",
  "signins",
  "tickets",
  "outbox",
  "sends",
  "faults",
  "passkeys",
  "passkey_user_handles",
  "breached_passwords",
  "range_requests",
];

/**
 * Clears users, their devices, sign-ins and passkeys, tickets, mail, faults, the added leaked passwords and range
 * requests, and the clock; the signing key stays (stable JWKS).
 */
export function resetState(sql: SqlStorage): void {
  for (const table of resetTables) sql.exec(`DELETE FROM ${table}`);
  sql.exec(`DELETE FROM meta WHERE key <> 'signing_key'`);
}

export function readMeta(sql: SqlStorage, key: string): string | undefined {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
  return row?.value;
}

export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
}
