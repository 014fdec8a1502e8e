// Structured JSON logs (architecture §8): one line per event and one summary line per request, never
// a password, code, token, cookie value or e-mail address. Fields are names, statuses, paths without their query
// (nor the leaked-password range route's prefix), and counts.
type Level = "info" | "warn" | "error";
type Field = string | number | boolean | undefined | Field[] | { [name: string]: Field };

/**
 * docs/security.md "Leaked passwords": the range route's last segment is the first five hex digits of the SHA-1 of a
 * password being typed, which narrows the password down for whoever reads it; logs and traces name the route instead.
 */
const PASSWORD_RANGE = /^(\/password\/range\/)[^/]+/;

/** A request's path as logs and traces name it: never its query, nor the password prefix of the range route. */
export function loggedRequestPath(path: string): string {
  return (path.split("?")[0] ?? "").replace(PASSWORD_RANGE, "$1{prefix}");
}

/**
 * Writes one line. A `path` field, whichever line carries it (the request's, a rate-limit refusal, an error the site
 * answered), goes through loggedRequestPath here, so that no caller logs the range route's prefix.
 */
export function logEvent(level: Level, event: string, fields: Record<string, Field> = {}): void {
  const path = typeof fields.path === "string" ? { path: loggedRequestPath(fields.path) } : {};
  console[level](JSON.stringify({ level, event, ...fields, ...path }));
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
  /** The product §8 modal shown, `form_errors` for a rejected form; else derived from the status. */
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
