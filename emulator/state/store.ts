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
    created_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS tickets (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    PRIMARY KEY (kind, id)
  )`,
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
  `CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    method TEXT NOT NULL,
    path_pattern TEXT NOT NULL,
    remaining INTEGER NOT NULL,
    spec TEXT NOT NULL
  )`,
];

export function migrate(sql: SqlStorage): void {
  for (const statement of schema) sql.exec(statement);
}

/** Clears users, tickets, mail, faults and the clock; the signing key stays so the JWKS is stable. */
export function resetState(sql: SqlStorage): void {
  for (const table of ["users", "tickets", "outbox", "faults"]) sql.exec(`DELETE FROM ${table}`);
  sql.exec(`DELETE FROM meta WHERE key <> 'signing_key'`);
}

export function readMeta(sql: SqlStorage, key: string): string | undefined {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
  return row?.value;
}

export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
}
