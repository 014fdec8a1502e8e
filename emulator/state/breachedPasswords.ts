/** A range request as the emulator received it: what a test checks that no more than the prefix was sent. */
export interface RangeRequest {
  /** The path and query, exactly as sent. */
  url: string;
  headers: Record<string, string>;
  bodyBytes: number;
  receivedAt: number;
}

/**
 * The passwords added to the range API's list (`POST /__emulator/breached-passwords`), by their SHA-1 in upper-case
 * hex (the password itself is not kept), and every range request received. Both go with `POST /__emulator/reset`.
 */
export class BreachedPasswords {
  constructor(private readonly sql: SqlStorage) {}

  add(hash: string, count: number): void {
    this.sql.exec(
      "INSERT INTO breached_passwords (hash, count) VALUES (?, ?) ON CONFLICT (hash) DO UPDATE SET count = count + ?",
      hash,
      count,
      count,
    );
  }

  /** The added hashes under a prefix (five upper-case hex digits), with their counts. */
  inRange(prefix: string): { hash: string; count: number }[] {
    return this.sql
      .exec<{ hash: string; count: number }>(
        "SELECT hash, count FROM breached_passwords WHERE substr(hash, 1, 5) = ?",
        prefix,
      )
      .toArray();
  }

  recordRequest(request: RangeRequest): void {
    this.sql.exec(
      "INSERT INTO range_requests (url, headers, body_bytes, received_at) VALUES (?, ?, ?, ?)",
      request.url,
      JSON.stringify(request.headers),
      request.bodyBytes,
      request.receivedAt,
    );
  }

  requests(): RangeRequest[] {
    return this.sql
      .exec<{ url: string; headers: string; body_bytes: number; received_at: number }>(
        "SELECT url, headers, body_bytes, received_at FROM range_requests ORDER BY id",
      )
      .toArray()
      .map((row) => ({
        url: row.url,
        headers: JSON.parse(row.headers) as Record<string, string>,
        bodyBytes: row.body_bytes,
        receivedAt: row.received_at,
      }));
  }
}
