/** A registered passkey: a WebAuthn credential of one account. Times are the emulator clock's (ms). */
export interface Passkey {
  /** The base64url credential id. */
  id: string;
  username: string;
  /** The account's user handle (base64url) the authenticator returns with every assertion. */
  userHandle: string;
  /** The credential's public key, base64url COSE. */
  publicKey: string;
  /** The last signature counter the authenticator reported (0 for authenticators that keep none). */
  counter: number;
  transports: string[];
  aaguid: string;
  name: string | null;
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  /** A copy of the authenticator was seen (its counter did not grow): the passkey signs nobody in any more. */
  suspended: boolean;
}

interface PasskeyRow extends Record<string, SqlStorageValue> {
  id: string;
  username: string;
  user_handle: string;
  public_key: string;
  counter: number;
  transports: string;
  aaguid: string;
  name: string | null;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
  suspended: number;
}

function fromRow(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    username: row.username,
    userHandle: row.user_handle,
    publicKey: row.public_key,
    counter: row.counter,
    transports: JSON.parse(row.transports) as string[],
    aaguid: row.aaguid,
    name: row.name,
    backedUp: row.backed_up === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    suspended: row.suspended === 1,
  };
}

/** The `passkeys` and `passkey_user_handles` tables (state/store.ts). */
export class Passkeys {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * The account's user handle: the one it already has, else `candidate`, which becomes its handle for good. One
   * handle for all of an account's passkeys, so an authenticator replaces its old passkey for the account instead
   * of keeping two.
   */
  userHandleOf(username: string, candidate: string): string {
    this.sql.exec(
      "INSERT OR IGNORE INTO passkey_user_handles (username, user_handle) VALUES (?, ?)",
      username,
      candidate,
    );
    const row = this.sql
      .exec<{ user_handle: string }>("SELECT user_handle FROM passkey_user_handles WHERE username = ?", username)
      .one();
    return row.user_handle;
  }

  byId(id: string): Passkey | undefined {
    const row = this.sql.exec<PasskeyRow>("SELECT * FROM passkeys WHERE id = ?", id).toArray()[0];
    return row && fromRow(row);
  }

  /** One of the account's passkeys; another account's is as absent as one that never existed. */
  ofAccount(username: string, id: string): Passkey | undefined {
    const passkey = this.byId(id);
    return passkey?.username === username ? passkey : undefined;
  }

  /** Newest first. */
  listOf(username: string): Passkey[] {
    return this.sql
      .exec<PasskeyRow>("SELECT * FROM passkeys WHERE username = ? ORDER BY created_at DESC, rowid DESC", username)
      .toArray()
      .map(fromRow);
  }

  insert(passkey: Passkey): void {
    this.sql.exec(
      `INSERT INTO passkeys (id, username, user_handle, public_key, counter, transports, aaguid, name, backed_up,
        created_at, last_used_at, suspended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      passkey.id,
      passkey.username,
      passkey.userHandle,
      passkey.publicKey,
      passkey.counter,
      JSON.stringify(passkey.transports),
      passkey.aaguid,
      passkey.name,
      passkey.backedUp ? 1 : 0,
      passkey.createdAt,
      passkey.lastUsedAt,
      passkey.suspended ? 1 : 0,
    );
  }

  /** A sign-in with it: the counter it reported, whether it is backed up now, and when. */
  recordUse(id: string, counter: number, backedUp: boolean, now: number): void {
    this.sql.exec(
      "UPDATE passkeys SET counter = ?, backed_up = ?, last_used_at = ? WHERE id = ?",
      counter,
      backedUp ? 1 : 0,
      now,
      id,
    );
  }

  rename(id: string, name: string): void {
    this.sql.exec("UPDATE passkeys SET name = ? WHERE id = ?", name, id);
  }

  suspend(id: string): void {
    this.sql.exec("UPDATE passkeys SET suspended = 1 WHERE id = ?", id);
  }

  remove(id: string): void {
    this.sql.exec("DELETE FROM passkeys WHERE id = ?", id);
  }
}
