import { listedInRange, RANGE_PREFIX_LENGTH, sha1Hex } from "../../forms/pwnedRange";
import type { AppContext } from "../context";
import { logEvent } from "../log";

// docs/security.md "Leaked passwords": a chosen password is looked up in a Pwned Passwords range API by the first five
// hex digits of its SHA-1 (k-anonymity: the password, its hash and the rest of the hash never leave the worker). The
// answers are cached at the edge by prefix. The check never stands in a customer's way: past its time budget, or on
// an upstream failure, it lets the password through, and the request's log line says so.

const DEFAULT_BUDGET_MS = 300;
/** A range changes when a breach is added to the list, which is rare: a day's answer is good enough. */
const CACHE_SECONDS = 86_400;

/** Why a check let the password through without an answer. */
type Skipped = "timeout" | "unreachable" | "status" | "malformed";

function budgetMs(env: Env): number {
  const configured = Number(env.PWNED_PASSWORDS_TIMEOUT_MS);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_BUDGET_MS;
}

/**
 * The range of this prefix (five upper-case hex digits), padded: from the edge cache, else from the API configured in
 * PWNED_PASSWORDS_URL (through the IDENTITY binding when that URL is the identity API's origin: the emulator in dev).
 * `undefined` when the check is off or skipped (logged).
 */
export async function passwordRange(c: AppContext, prefix: string): Promise<string | undefined> {
  const base = c.env.PWNED_PASSWORDS_URL?.trim();
  if (!base) return undefined;
  const log = c.get("log");
  const started = performance.now();
  const skip = (reason: Skipped, status?: number) => {
    logEvent("warn", "password_check_skipped", {
      requestId: c.get("requestId"),
      reason,
      status,
      ms: Math.round(performance.now() - started),
    });
    if (log) log.passwordCheck = "skipped";
    return undefined;
  };
  try {
    const url = new URL(`range/${prefix}`, base.endsWith("/") ? base : `${base}/`);
    const cache = await caches.open("pwned-passwords");
    const cached = await cache.match(url);
    if (cached) return await cached.text();
    const request = new Request(url, {
      headers: { "Add-Padding": "true" },
      signal: AbortSignal.timeout(budgetMs(c.env)),
    });
    const identity = c.env.IDENTITY;
    const viaIdentity = identity && url.origin === new URL(c.env.IDENTITY_API_ORIGIN).origin;
    const response = await (viaIdentity ? identity.fetch(request) : fetch(request));
    log?.upstream.push({ call: "GET /range", status: response.status, ms: Math.round(performance.now() - started) });
    if (response.status !== 200) {
      await response.body?.cancel();
      return skip("status", response.status);
    }
    const body = await response.text();
    if (listedInRange(body, "") === undefined) return skip("malformed");
    // A cache that cannot keep the answer costs the next check a request, not this one its answer.
    await cache
      .put(url, new Response(body, { headers: { "Cache-Control": `max-age=${CACHE_SECONDS}` } }))
      .catch(() => undefined);
    return body;
  } catch (error) {
    return skip(error instanceof Error && error.name === "TimeoutError" ? "timeout" : "unreachable");
  }
}

/** NIST SP 800-63B-4 §3.1.1.2: whether the password is on the list of passwords leaked elsewhere (false if unknown). */
export async function isLeaked(c: AppContext, password: string): Promise<boolean> {
  const hash = await sha1Hex(password);
  const range = await passwordRange(c, hash.slice(0, RANGE_PREFIX_LENGTH));
  const listed = range !== undefined && listedInRange(range, hash.slice(RANGE_PREFIX_LENGTH)) === true;
  const log = c.get("log");
  if (log && range !== undefined) log.passwordCheck = listed ? "listed" : "not_listed";
  return listed;
}
