// Structured JSON logs (ARCHITECTURE §8): one line per event and one summary line per request, never
// a password, code, token, cookie value or e-mail address. Fields are names, statuses, paths without their query,
// and counts.
type Level = "info" | "warn" | "error";
type Field = string | number | boolean | undefined | Field[] | { [name: string]: Field };

export function logEvent(level: Level, event: string, fields: Record<string, Field> = {}): void {
  console[level](JSON.stringify({ level, event, ...fields }));
}

/**
 * One upstream call of a request: the call's method and path (never its query), its status and latency. A type, not
 * an interface, so that the summary line takes the calls as they are (a log field).
 */
type UpstreamCall = {
  call: string;
  /** The HTTP status, or `timeout` / `unreachable` when none came. */
  status: number | "timeout" | "unreachable";
  ms: number;
};

/** What a request's summary line says beyond its status, filled in as the request goes. */
export interface RequestLog {
  /** The route-table row that answered (worker/routes.tsx). */
  route?: string;
  /** The SPEC §8 modal shown, `form_errors` for a rejected form; else derived from the status. */
  outcome?: string;
  /** The rate-limit decision, where one was made (worker/rateLimit.ts). */
  rateLimit?: { class: string; limited: boolean };
  /**
   * The leaked-password check of a chosen password (worker/identity/pwnedPasswords.ts): `skipped` when it let the
   * password through without an answer (time-out, upstream error, malformed answer), which operators count.
   */
  passwordCheck?: "listed" | "not_listed" | "skipped";
  upstream: UpstreamCall[];
}

export function newRequestLog(): RequestLog {
  return { upstream: [] };
}

/** A status's outcome when no modal or form said more. */
export function outcomeOfStatus(status: number): string {
  if (status >= 300 && status < 400) return "redirect";
  if (status === 404) return "not_found";
  if (status >= 500) return "error";
  return status >= 400 ? "refused" : "ok";
}
