import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { UpstreamUnavailableError, upstreamFetch } from "../identity/upstream";
import { logEvent } from "../log";

// ARCHITECTURE §3: the browser and the native app see one origin. Only the calls of SPEC §7 (and the
// OAuth2 discovery documents a standard client reads) pass; everything else under these prefixes is 404.
const ALLOWED: ReadonlyArray<readonly [method: string, path: RegExp]> = [
  ["GET", /^\/auth\/health$/],
  ["GET", /^\/auth\/v1\/consent$/],
  ["POST", /^\/auth\/v1\/consent$/],
  ["GET", /^\/auth\/v1\/login$/],
  ["POST", /^\/auth\/v1\/login$/],
  ["POST", /^\/auth\/v1\/login\/sendOtpEmail$/],
  ["GET", /^\/auth\/v1\/logout$/],
  ["POST", /^\/auth\/v1\/password\/(forgot|confirm)$/],
  ["POST", /^\/auth\/v1\/register(\/checkEmail|\/confirm|\/confirm\/resend|\/otpEmail)?$/],
  ["POST", /^\/auth\/v1\/tenants\/[a-z0-9-]{1,64}\/loginHint$/],
  ["GET", /^\/auth\/v1\/tenants\/[a-z0-9-]{1,64}\/loginHint\/[A-Za-z0-9_-]{1,128}$/],
  ["POST", /^\/auth\/v1\/token$/],
  ["PATCH", /^\/auth\/v1\/user\/email$/],
  ["POST", /^\/auth\/v1\/user\/email$/],
  ["GET", /^\/auth\/v1\/user\/email\/confirm$/],
  ["POST", /^\/auth\/v1\/user\/email\/confirm$/],
  ["POST", /^\/auth\/v1\/user\/mfa\/(setup|confirm)$/],
  ["PATCH", /^\/auth\/v1\/user\/password$/],
  ["GET", /^\/auth\/v1\/user\/profile$/],
  ["GET", /^\/oauth2\/auth$/],
  ["POST", /^\/oauth2\/token$/],
  ["GET", /^\/\.well-known\/(openid-configuration|jwks\.json)$/],
];

export function isProxiedCall(method: string, path: string): boolean {
  const effective = method === "HEAD" ? "GET" : method;
  return ALLOWED.some(([allowedMethod, pattern]) => allowedMethod === effective && pattern.test(path));
}

// Headers a proxy must not pass on (RFC 9110 §7.6.1) plus the ones this proxy sets itself.
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "cf-connecting-ip",
];

export async function relay(c: Context<AppEnv>, pathAndQuery: string): Promise<Response> {
  const headers = new Headers(c.req.raw.headers);
  for (const name of HOP_BY_HOP) headers.delete(name);
  const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
  try {
    const upstream = await upstreamFetch(c, pathAndQuery, {
      method: c.req.method,
      headers,
      ...(hasBody ? { body: await c.req.arrayBuffer() } : {}),
    });
    const relayed = new Headers(upstream.headers);
    for (const name of HOP_BY_HOP) relayed.delete(name);
    // A fresh Response: the upstream's headers are immutable, and the security headers go on after.
    return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: relayed });
  } catch (error) {
    if (!(error instanceof UpstreamUnavailableError)) throw error;
    logEvent("warn", "upstream_unavailable", {
      requestId: c.get("requestId"),
      path: c.req.path,
      message: error.message,
    });
    return error.timedOut
      ? c.json({ type: "upstream_timeout", detail: "The identity service did not answer in time." }, 504)
      : c.json({ type: "upstream_unavailable", detail: "The identity service could not be reached." }, 502);
  }
}

/** `/auth/*`, `/oauth2/*`, `/.well-known/*`: only the allow-listed calls pass; anything else under them is 404. */
export const relayAllowedCall: MiddlewareHandler<AppEnv> = async function relayAllowedCall(c) {
  if (!isProxiedCall(c.req.method, c.req.path)) return c.json({ type: "not_found", detail: "No such call." }, 404);
  const url = new URL(c.req.url);
  return relay(c, `${url.pathname}${url.search}`);
};

/** The emulator's developer endpoints, only where the emulator is bound (wrangler's dev environment). */
export const relayToEmulator: MiddlewareHandler<AppEnv> = async function relayToEmulator(c, next) {
  if (!c.env.IDENTITY || c.env.APP_ENV !== "dev") return next();
  const url = new URL(c.req.url);
  return relay(c, `${url.pathname}${url.search}`);
};
