import type { AppContext } from "../context";

// ARCHITECTURE §3: the upstream's only cookie is its OAuth2 login session (Hydra's
// `oauth2_authentication_session`, or UPSTREAM_SESSION_COOKIE). It is the one browser cookie that goes upstream,
// and the one cookie the upstream may set; the site's own `__Host-` cookies never leave, never get overwritten.

const DEFAULT_SESSION_COOKIE = "oauth2_authentication_session";
/** The browser sends the session cookie only under this path, where the OAuth2 server answers. */
const SESSION_COOKIE_PATH = "/oauth2";

export function upstreamSessionCookieName(env: Env): string {
  return env.UPSTREAM_SESSION_COOKIE || DEFAULT_SESSION_COOKIE;
}

/** The Cookie header for an upstream call: the upstream's session cookie, if the browser sent it; nothing else. */
export function upstreamCookieHeader(c: AppContext): string | undefined {
  const name = upstreamSessionCookieName(c.env);
  const session = (c.req.header("cookie") ?? "")
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name}=`));
  return session || undefined;
}

/**
 * An upstream Set-Cookie as the site lets it reach the browser: only the upstream's session cookie, on the
 * OAuth2 path, Secure, HttpOnly and SameSite=Lax (it must come back on the redirect from the login), with its
 * lifetime kept and any Domain dropped. Anything else the upstream tries to set is dropped (undefined).
 */
export function siteSetCookie(c: AppContext, line: string): string | undefined {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const at = pair.indexOf("=");
  if (at <= 0 || pair.slice(0, at) !== upstreamSessionCookieName(c.env)) return undefined;
  const lifetime = attributes.filter((attribute) => /^(max-age|expires)=/i.test(attribute));
  return [pair, `Path=${SESSION_COOKIE_PATH}`, ...lifetime, "Secure", "HttpOnly", "SameSite=Lax"].join("; ");
}

/** Copies the upstream's cookies, rewritten to the site's rules, onto a response's headers. */
export function relaySetCookies(c: AppContext, from: Headers, to: (line: string) => void): void {
  for (const line of from.getSetCookie()) {
    const rewritten = siteSetCookie(c, line);
    if (rewritten) to(rewritten);
  }
}
