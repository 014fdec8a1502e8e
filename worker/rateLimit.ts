import { modals } from "../messages/modals";
import type { AppContext } from "./context";
import { logEvent } from "./log";
import { sha256Hex } from "./session/digest";

// architecture §8 brute force: every route of the table declares one of these classes. Each class counts per
// client IP and, where a form names one, per subject (the normalised login ID, the MFA session, the address).
// The bindings live in wrangler.toml (limits per 60 s); docs/security.md, "Rate limits", shows the same table.
// The binding counts per location and approximately, so the identity provider's caps stay the authoritative ones.

export type RateLimitClass = "credential" | "code" | "mail" | "read" | "report";

interface ClassBindings {
  byIp: RateLimit;
  bySubject?: RateLimit | undefined;
}

function bindingsOf(env: Env, rateLimit: RateLimitClass): ClassBindings {
  switch (rateLimit) {
    case "credential":
      return { byIp: env.RL_CREDENTIAL_BY_IP, bySubject: env.RL_CREDENTIAL_BY_SUBJECT };
    case "code":
      return { byIp: env.RL_CODE_BY_IP, bySubject: env.RL_CODE_BY_SUBJECT };
    case "mail":
      return { byIp: env.RL_MAIL_BY_IP, bySubject: env.RL_MAIL_BY_SUBJECT };
    case "read":
      return { byIp: env.RL_READ_BY_IP };
    case "report":
      return { byIp: env.RL_REPORT_BY_IP };
  }
}

/** The wait a refused client is told (the bindings' period), as the catalogue's modal says. */
export const RETRY_AFTER_SECONDS = modals.tooManyAttempts.retryAfterSeconds;

/** A login ID or address as one subject, however it is typed (case, surrounding space, full-width forms). */
export function normalisedSubject(value: string): string {
  return value.normalize("NFKC").trim().toLowerCase();
}

/**
 * Counts this request in its class; true when the client IP or the subject is over its limit. The subject is
 * hashed, so no login ID or address is kept as a key. `ip: false` counts the subject alone, for a request whose
 * address was counted already (a credential try, counted per subject once the upstream answered: routeKinds.tsx).
 */
export async function overLimit(
  c: AppContext,
  rateLimit: RateLimitClass,
  subject?: string,
  { ip: countIp = true } = {},
): Promise<boolean> {
  const { byIp, bySubject } = bindingsOf(c.env, rateLimit);
  const ip = c.req.header("cf-connecting-ip") ?? "local";
  const checks = countIp ? [byIp.limit({ key: `${rateLimit}:ip:${ip}` })] : [];
  if (bySubject && subject) checks.push(bySubject.limit({ key: `${rateLimit}:subject:${await sha256Hex(subject)}` }));
  const refused = (await Promise.all(checks)).some((outcome) => !outcome.success);
  const log = c.get("log");
  if (log) log.rateLimit = { class: rateLimit, limited: refused };
  if (refused) logEvent("warn", "rate_limited", { requestId: c.get("requestId"), rateLimit, path: c.req.path });
  return refused;
}
