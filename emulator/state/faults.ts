import { z } from "zod";

/** Header by which the state object tells the entry worker to fail the call like a dropped connection. */
export const dropHeader = "x-emulator-fault";

export const faultSchema = z.object({
  method: z.string().min(1).max(10).default("*"),
  /** A regex when it starts with `^`, else a glob of the whole path (`*` within a segment, `**` across, `?` one char). */
  pathPattern: z.string().min(1).max(500),
  /** Only calls whose body includes this text (a test's own login ID, say: tests that share an emulator). */
  bodyIncludes: z.string().min(1).max(200).optional(),
  times: z.number().int().min(1).max(10_000).default(1),
  status: z.number().int().min(200).max(599).optional(),
  body: z.unknown().optional(),
  /** A redirect's target (with a 3xx status): an OAuth2 server that sends the browser somewhere it should not. */
  location: z.string().url().max(2048).optional(),
  delayMs: z.number().int().min(0).max(60_000).optional(),
  /**
   * The call waits until the test releases it (`POST /__emulator/faults/release`), at most a minute, then plays the
   * rest of the fault: a test that must see what the caller shows meanwhile waits for that, not for a delay.
   */
  held: z.literal(true).optional(),
  malformed: z.literal(true).optional(),
  drop: z.literal(true).optional(),
});

export type FaultSpec = z.output<typeof faultSchema>;

export function compilePattern(pattern: string): RegExp {
  if (pattern.startsWith("^")) return new RegExp(pattern);
  const source = pattern
    .split(/(\*\*|\*|\?)/)
    .map((part) => {
      if (part === "**") return ".*";
      if (part === "*") return "[^/]*";
      if (part === "?") return "[^/]";
      return part.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

interface FaultRow extends Record<string, SqlStorageValue> {
  id: number;
  method: string;
  path_pattern: string;
  remaining: number;
  spec: string;
}

export class Faults {
  constructor(private readonly sql: SqlStorage) {}

  add(spec: FaultSpec): number {
    return this.sql
      .exec<{ id: number }>(
        "INSERT INTO faults (method, path_pattern, remaining, spec) VALUES (?, ?, ?, ?) RETURNING id",
        spec.method.toUpperCase(),
        spec.pathPattern,
        spec.times,
        JSON.stringify(spec),
      )
      .one().id;
  }

  list(): (FaultSpec & { id: number; remaining: number })[] {
    return this.sql
      .exec<FaultRow>("SELECT * FROM faults ORDER BY id")
      .toArray()
      .map((row) => ({ ...(JSON.parse(row.spec) as FaultSpec), id: row.id, remaining: row.remaining }));
  }

  clear(): void {
    this.sql.exec("DELETE FROM faults");
  }

  /**
   * The oldest fault matching this call, counted down by one use. The body is read only when a fault asks for it,
   * before the faults are read for the choice: no await between choosing a fault and using it up.
   */
  async take(method: string, path: string, body: () => Promise<string>): Promise<FaultSpec | undefined> {
    const rows = () => this.sql.exec<FaultRow>("SELECT * FROM faults ORDER BY id").toArray();
    const specOf = (row: FaultRow) => JSON.parse(row.spec) as FaultSpec;
    const text = rows().some((row) => specOf(row).bodyIncludes !== undefined) ? await body() : "";
    for (const row of rows()) {
      if (row.method !== "*" && row.method !== method.toUpperCase()) continue;
      if (!compilePattern(row.path_pattern).test(path)) continue;
      const { bodyIncludes } = specOf(row);
      if (bodyIncludes !== undefined && !text.includes(bodyIncludes)) continue;
      if (row.remaining <= 1) this.sql.exec("DELETE FROM faults WHERE id = ?", row.id);
      else this.sql.exec("UPDATE faults SET remaining = remaining - 1 WHERE id = ?", row.id);
      return specOf(row);
    }
    return undefined;
  }
}

/** The longest a held call waits for its release: a test that never releases it fails on the caller's time-out. */
const HELD_AT_MOST_MS = 60_000;

/** The held calls of this isolate (the state object's: one per emulator), each released by calling it. */
const heldCalls = new Set<() => void>();

/** Lets every held call go on; answers how many there were. */
export function releaseHeldCalls(): number {
  const released = heldCalls.size;
  for (const release of [...heldCalls]) release();
  return released;
}

function heldUntilReleased(): Promise<void> {
  return new Promise((resolve) => {
    const release = () => {
      heldCalls.delete(release);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(release, HELD_AT_MOST_MS);
    heldCalls.add(release);
  });
}

/** Plays a fault: waits, then answers in its place, or returns undefined to let the real handler answer. */
export async function playFault(fault: FaultSpec): Promise<Response | undefined> {
  if (fault.held) await heldUntilReleased();
  if (fault.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
  if (fault.drop) return new Response(null, { status: 502, headers: { [dropHeader]: "drop" } });
  if (fault.malformed) {
    return new Response('{"type": "injected_fault", "detail": ', {
      status: fault.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  }
  if (fault.status === undefined) return undefined;
  if (fault.location !== undefined)
    return new Response(null, { status: fault.status, headers: { location: fault.location } });
  if (typeof fault.body === "string") {
    return new Response(fault.body, { status: fault.status, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  const body = fault.body ?? { type: "injected_fault", detail: `Injected fault ${fault.status}` };
  return Response.json(body, { status: fault.status });
}
