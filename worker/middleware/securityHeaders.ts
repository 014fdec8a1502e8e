import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

const ONE_YEAR_AND_A_DAY = 60 * 60 * 24 * 366;

function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes));
}

// The directives after the nonce's, the same for every response up to form-action's own origins.
const CSP_FIXED = [
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

/** architecture §8: the policy for one response; form-action depends on what the route decided. */
function contentSecurityPolicy(nonce: string, formActionOrigins: readonly string[]): string {
  let policy = `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'self' 'nonce-${nonce}'; ${CSP_FIXED}`;
  for (const origin of formActionOrigins) policy += ` ${origin}`;
  return policy;
}

// Query parameters that are one-time secrets or personal data in the address of a page (the reset link's code and
// username, challenges, state): such a page sends no referrer at all, not even to this site.
const SECRET_QUERY_PARAMETERS = [
  "code",
  "username",
  "state",
  "login_challenge",
  "consent_challenge",
  "login_verifier",
  "consent_verifier",
  "code_challenge",
] as const;

/**
 * product §4: the session guard acts only on a page reached from this site, so referrers stay on this origin
 * (`same-origin`: another site never gets one). A page whose address holds a secret sends none. A redirect keeps
 * `same-origin` whatever its address: its referrer is the page the navigation started from, never the redirect's
 * URL, and its policy becomes the next request's, so `no-referrer` there would hide that page from the guard.
 */
export function referrerPolicy(url: string, status: number): "same-origin" | "no-referrer" {
  if (status >= 300 && status < 400) return "same-origin";
  // The query alone is read (a request's URL has no fragment): no URL is parsed for an address without one.
  const queryAt = url.indexOf("?");
  if (queryAt === -1) return "same-origin";
  const query = new URLSearchParams(url.slice(queryAt + 1).split("#", 1)[0]);
  return SECRET_QUERY_PARAMETERS.some((name) => query.has(name)) ? "no-referrer" : "same-origin";
}

// hono/secure-headers' baseline as the site configured it, written out: the middleware's option parsing (CSP
// builders, report endpoints) would ship for a fixed list. Referrer-Policy, the CSP and the rest follow below.
const BASELINE: readonly (readonly [string, string])[] = [
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Strict-Transport-Security", `max-age=${ONE_YEAR_AND_A_DAY}; includeSubDomains`],
  ["X-Content-Type-Options", "nosniff"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Frame-Options", "DENY"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

/**
 * Every response, including 404s, errors and redirects, leaves with the security baseline and a fresh
 * CSP nonce that the document shell puts on each script and style tag.
 *
 * @example app.use(securityHeaders())
 */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async function securityHeaders(c, next) {
    c.set("nonce", newNonce());
    c.set("formActionOrigins", []);
    await next();
    const headers = c.res.headers;
    for (const [name, value] of BASELINE) headers.set(name, value);
    headers.delete("X-Powered-By");
    headers.set("Content-Security-Policy", contentSecurityPolicy(c.get("nonce"), c.get("formActionOrigins")));
    headers.set("Referrer-Policy", c.get("referrerPolicy") ?? referrerPolicy(c.req.url, c.res.status));
    headers.set("Cache-Control", c.get("cacheControl") ?? "no-store");
    headers.set("X-Robots-Tag", "noindex, nofollow");
    // No screen reads a QR code or uses the camera (docs/native-bridge.md, "Not in the protocol").
    headers.set(
      "Permissions-Policy",
      "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    );
  };
}
