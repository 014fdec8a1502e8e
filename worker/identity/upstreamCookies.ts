import type { AppContext } from "../context";

// architecture §3: the upstream's only cookie is its OAuth2 login session (Hydra's
// `oauth2_authentication_session`, or UPSTREAM_SESSION_COOKIE). It is the one browser cookie that goes upstream,
// and the one cookie the upstream may set; the site's own `__Host-` cookies never leave, never get overwritten.
// The browser keeps it under a name of the site's, `__Host-oauth2-session`, for the whole site: the worker asks the
// authorization endpoint itself at the app's start (docs/security.md, "Redirects"), so the session must come with
// that request too, and `__Host-` keeps another host from planting one.

const DEFAULT_SESSION_COOKIE = "oauth2_authentication_session";
/** The session cookie's name in the browser. */
const SESSION_COOKIE = "__Host-oauth2-session";

export function upstreamSessionCookieName(env: Env): string {
  return env.UPSTREAM_SESSION_COOKIE || DEFAULT_SESSION_COOKIE;
}

/**
 * The Cookie header for an upstream call: the upstream's session cookie, if the browser sent it, and only to the
 * OAuth2 server's endpoints and logout (which ends that session); nothing else, never another cookie.
 */
export function upstreamCookieHeader(c: AppContext, upstreamPath: string): string | undefined {
  if (!upstreamPath.startsWith("/oauth2/") && !upstreamPath.startsWith("/auth/v1/logout")) return undefined;
  const session = (c.req.header("cookie") ?? "")
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${SESSION_COOKIE}=`));
  return session && `${upstreamSessionCookieName(c.env)}=${session.slice(SESSION_COOKIE.length + 1)}`;
}

/**
 * An upstream Set-Cookie as the site lets it reach the browser: only the upstream's session cookie, under the
 * site's name for it, Path=/, Secure, HttpOnly and SameSite=Lax (it must come with the app's start, a navigation
 * from the app), with its lifetime kept and any Domain dropped. Anything else the upstream sets is dropped.
 */
export function siteSetCookie(c: AppContext, line: string): string | undefined {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const at = pair.indexOf("=");
  if (at <= 0 || pair.slice(0, at) !== upstreamSessionCookieName(c.env)) return undefined;
  const lifetime = attributes.filter((attribute) => /^(max-age|expires)=/i.test(attribute));
  return [`${SESSION_COOKIE}=${pair.slice(at + 1)}`, "Path=/", ...lifetime, "Secure", "HttpOnly", "SameSite=Lax"].join(
    "; ",
  );
}

/** Copies the upstream's cookies, rewritten to the site's rules, onto a response's headers. */
export function relaySetCookies(c: AppContext, from: Headers, to: (line: string) => void): void {
  for (const line of from.getSetCookie()) {
    const rewritten = siteSetCookie(c, line);
    if (rewritten) to(rewritten);
  }
}
