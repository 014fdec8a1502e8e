import type { Context, MiddlewareHandler } from "hono";
import { parseAuthorizationDetails } from "../../forms/authorizationDetails";
import { brandForClientId, defaultBrand } from "../../themes/brands";
import type { AppEnv } from "../context";
import { loginUrlOfThisBrowser, takeLoginChallenge } from "../flow/loginChallenge";
import { UpstreamUnavailableError, upstreamFetch } from "../identity/upstream";
import { relaySetCookies, upstreamCookieHeader } from "../identity/upstreamCookies";
import { logEvent } from "../log";
import { errorPage, type Outcome } from "../render";

// architecture §3: the native app and standard OAuth2 clients see one origin. Only what they need passes: the
// OAuth2 authorization and token endpoints, the pushed authorization request endpoint (an app's server pushes an
// operation there: docs/operations.md), discovery, the health check, the signed-in user's profile (bearer) and logout. Every other identity call is the worker's own (the site's forms), so it is not reachable from
// outside: no password reset, sign-up or e-mail check through the proxy. Everything else under these prefixes
// is 404. docs/security.md ("The narrow proxy") lists the same calls.
const ALLOWED: ReadonlyArray<readonly [method: string, path: RegExp]> = [
  ["GET", /^\/auth\/health$/],
  ["GET", /^\/auth\/v1\/logout$/],
  ["GET", /^\/auth\/v1\/user\/profile$/],
  ["GET", /^\/oauth2\/auth$/],
  ["POST", /^\/oauth2\/par$/],
  ["POST", /^\/oauth2\/token$/],
  ["GET", /^\/\.well-known\/(openid-configuration|jwks\.json)$/],
];

export function isProxiedCall(method: string, path: string): boolean {
  const effective = method === "HEAD" ? "GET" : method;
  return ALLOWED.some(([allowedMethod, pattern]) => allowedMethod === effective && pattern.test(path));
}

/** The request headers a proxied call may carry upstream; the forwarding headers are set by upstreamFetch. */
const REQUEST_HEADERS = ["content-type", "accept", "accept-language", "authorization", "x-device-id"];
/** The response headers the upstream may send back; Set-Cookie is rewritten separately. */
const RESPONSE_HEADERS = ["content-type", "location", "cache-control", "www-authenticate", "retry-after"];

/**
 * A state-changing call from a browser must come from the site itself (Fetch Metadata), or carry a bearer token;
 * a browser without Fetch Metadata is judged by its Origin. Non-browser clients send neither and pass.
 */
function crossSiteBrowserCall(c: Context<AppEnv>): boolean {
  if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS") return false;
  if (/^Bearer\s/i.test(c.req.header("authorization") ?? "")) return false;
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  const origin = c.req.header("origin");
  return origin !== undefined && origin !== new URL(c.req.url).origin;
}

/** A browser navigating (the OAuth2 authorization endpoint in every journey), not an API client. */
function navigation(c: Context<AppEnv>): boolean {
  const mode = c.req.header("sec-fetch-mode");
  return mode !== undefined ? mode === "navigate" : (c.req.header("accept") ?? "").includes("text/html");
}

/** What a browser sees when the upstream fails under it: the product §8 modal in the brand of the request's client. */
function pageForBrowser(c: Context<AppEnv>, outcome: Outcome): Promise<Response> {
  c.set("brand", brandForClientId(c.req.query("client_id") ?? "") ?? defaultBrand);
  return errorPage(c, outcome);
}

/**
 * A browser's own authorization (docs/security.md, "Redirects"): when the OAuth2 server answers the authorization endpoint
 * with the site's login URL for the authorization this browser's auth request started, the site does the login
 * URL's work here and sends the browser straight to the sign-in or sign-up screen, one redirect fewer; the
 * challenge never reaches the address bar. The upstream's session cookie goes with it. Only for a browser
 * navigating to `/oauth2/auth`: API clients and any other authorization see the upstream's answer as it is.
 */
async function loginScreenForBrowser(c: Context<AppEnv>, upstream: Headers): Promise<Response | undefined> {
  if (c.req.method !== "GET" || c.req.path !== "/oauth2/auth" || !navigation(c)) return undefined;
  const ours = await loginUrlOfThisBrowser(c, new URL(c.req.url).searchParams, upstream.get("location"));
  if (!ours) return undefined;
  relaySetCookies(c, upstream, (line) => c.header("Set-Cookie", line, { append: true }));
  return takeLoginChallenge(c, ours.authRequest, ours.loginUrl);
}

/**
 * docs/runbook.md, "Event lines": an operation an app's server pushed, as operators count it: its client's brand, the
 * type it names where its details are valid (forms/authorizationDetails.ts; else none), the upstream's status. Never
 * the details or the request_uri.
 */
function logPush(c: Context<AppEnv>, body: ArrayBuffer, status: number): void {
  const form = new URLSearchParams(new TextDecoder().decode(body));
  const details = parseAuthorizationDetails(form.get("authorization_details") ?? "");
  logEvent("info", "operation_pushed", {
    requestId: c.get("requestId"),
    brand: brandForClientId(form.get("client_id") ?? "")?.id,
    type: details.success ? details.data[0]?.type : undefined,
    status,
  });
}

export async function relay(c: Context<AppEnv>, pathAndQuery: string): Promise<Response> {
  const headers = new Headers();
  for (const name of REQUEST_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  const session = upstreamCookieHeader(c, c.req.path);
  if (session) headers.set("cookie", session);
  const sent = c.req.method !== "GET" && c.req.method !== "HEAD" ? await c.req.arrayBuffer() : undefined;
  try {
    const upstream = await upstreamFetch(c, pathAndQuery, {
      method: c.req.method,
      headers,
      ...(sent ? { body: sent } : {}),
    });
    if (sent && c.req.path === "/oauth2/par") logPush(c, sent, upstream.status);
    // A fresh Response: the upstream's headers are immutable, and the security headers go on after.
    const relayed = new Headers();
    for (const name of RESPONSE_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) relayed.set(name, value);
    }
    relaySetCookies(c, upstream.headers, (line) => relayed.append("Set-Cookie", line));
    // A browser is redirected or shown a page; any other answer (a 5xx, JSON, a body that is not a page) is the
    // product §8 modal, never raw upstream output.
    const page = (upstream.headers.get("content-type") ?? "").includes("text/html");
    const redirect = upstream.status >= 300 && upstream.status < 400;
    const loginScreen = redirect ? await loginScreenForBrowser(c, upstream.headers) : undefined;
    if (loginScreen) {
      await upstream.body?.cancel();
      return loginScreen;
    }
    if (navigation(c) && !redirect && (upstream.status >= 500 || !page)) {
      await upstream.body?.cancel();
      if (upstream.status === 503) return pageForBrowser(c, { modal: "maintenance" });
      if (upstream.status >= 400 && upstream.status < 500) return pageForBrowser(c, { modal: "parameterError" });
      return pageForBrowser(c, { modal: "unexpectedError", status: 502 });
    }
    // A status that has no content (RFC 9110 §15.3.5, §15.3.6, §15.4.5) is relayed without a body.
    const body = [204, 205, 304].includes(upstream.status) ? null : upstream.body;
    return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers: relayed });
  } catch (error) {
    if (!(error instanceof UpstreamUnavailableError)) throw error;
    logEvent("warn", "upstream_unavailable", {
      requestId: c.get("requestId"),
      path: c.req.path,
      message: error.message,
    });
    if (navigation(c)) return pageForBrowser(c, { modal: "unexpectedError", status: error.timedOut ? 504 : 502 });
    return error.timedOut
      ? c.json({ type: "upstream_timeout", detail: "The identity service did not answer in time." }, 504)
      : c.json({ type: "upstream_unavailable", detail: "The identity service could not be reached." }, 502);
  }
}

/** `/auth/*`, `/oauth2/*`, `/.well-known/*`: only the allow-listed calls pass; anything else under them is 404. */
export const relayAllowedCall: MiddlewareHandler<AppEnv> = async function relayAllowedCall(c) {
  if (!isProxiedCall(c.req.method, c.req.path)) return c.json({ type: "not_found", detail: "No such call." }, 404);
  if (crossSiteBrowserCall(c)) {
    return c.json({ type: "forbidden", detail: "A cross-site call needs a bearer token." }, 403);
  }
  const url = new URL(c.req.url);
  return relay(c, `${url.pathname}${url.search}`);
};

/** The emulator's developer endpoints, only where the emulator is bound (wrangler's dev environment). */
export const relayToEmulator: MiddlewareHandler<AppEnv> = async function relayToEmulator(c, next) {
  if (!c.env.IDENTITY || c.env.APP_ENV !== "dev") return next();
  const url = new URL(c.req.url);
  return relay(c, `${url.pathname}${url.search}`);
};
