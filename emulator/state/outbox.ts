import type { Message } from "../contract/mailCatalogue";

export interface OutboxItem {
  to: string;
  kind: "email" | "sms";
  subject: string;
  text: string;
  code: string | null;
  link: string | null;
  sentAt: string;
}

interface OutboxRow extends Record<string, SqlStorageValue> {
  to_addr: string;
  kind: string;
  subject: string;
  text: string;
  code: string | null;
  link: string | null;
  sent_at: number;
}

/** Every mail and SMS the emulator "sends" lands here for a developer or a test to read. */
export class Outbox {
  constructor(private readonly sql: SqlStorage) {}

  send(
    kind: OutboxItem["kind"],
    to: string,
    message: Message,
    now: number,
    extra: { code?: string; link?: string },
  ): void {
    this.sql.exec(
      "INSERT INTO outbox (to_addr, kind, subject, text, code, link, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      to,
      kind,
      message.subject,
      message.text,
      extra.code ?? null,
      extra.link ?? null,
      now,
    );
  }

  /** Newest first; `to` matches an address case-insensitively or a phone number exactly. */
  list(to: string | undefined): OutboxItem[] {
    const rows =
      to === undefined
        ? this.sql.exec<OutboxRow>("SELECT * FROM outbox ORDER BY id DESC").toArray()
        : this.sql
            .exec<OutboxRow>("SELECT * FROM outbox WHERE to_addr = ? COLLATE NOCASE ORDER BY id DESC", to)
            .toArray();
    return rows.map((row) => ({
      to: row.to_addr,
      kind: row.kind === "sms" ? "sms" : "email",
      subject: row.subject,
      text: row.text,
      code: row.code,
      link: row.link,
      sentAt: new Date(row.sent_at).toISOString(),
    }));
  }
}
