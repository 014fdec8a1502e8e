import { type SealedCookieName, type SealedState, sealedCookies } from "../../worker/session/cookies";
import { parseSessionKeys } from "../../worker/session/keys";
import { seal } from "../../worker/session/sealed";

// How a browser posts the site's forms and what state the site would have left in its cookies: one definition
// for the workerd and the browser tests.

/**
 * One password for each rule of the standard set that it alone breaks (forms/rules.ts), with the message key the
 * form answers: the weak-password cases of every form that chooses a password.
 */
export const WEAK_PASSWORDS = [
  ["Ab1!", "password.length"],
  ["ABCDEFG1!", "password.lowercase"],
  ["abcdefg1!", "password.uppercase"],
  ["Abcdefgh1", "password.symbol"],
  ["Abcdefgh!", "password.digit"],
  ["Abcdefg1!é", "password.allowedCharacters"],
] as const;

/** A form POST as a browser sends it from one of the site's own pages. */
export function formPost(form: Record<string, string>, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    redirect: "manual",
  };
}

/**
 * A Cookie header value holding one sealed state, as the worker itself would have written it (at `now`, milliseconds
 * since the epoch, when given: a cookie sealed long ago).
 */
export async function sealedCookie<N extends SealedCookieName>(
  sessionKeys: string,
  which: N,
  value: SealedState<N>,
  ttlSeconds = 600,
  now = Date.now(),
): Promise<string> {
  const spec = sealedCookies[which];
  const token = await seal(spec.name, value, { keys: parseSessionKeys(sessionKeys), ttlSeconds, now });
  return `__Host-${spec.name}=${token}`;
}

/** A Cookie header value holding every sealed state of a journey's state (a screen's, say), as the worker would. */
export async function sealedCookieHeader(
  sessionKeys: string,
  state: { [N in SealedCookieName]?: SealedState<N> },
  ttlSeconds = 3600,
): Promise<string> {
  const cookies = await Promise.all(
    Object.entries(state).map(([which, value]) =>
      sealedCookie(sessionKeys, which as SealedCookieName, value as never, ttlSeconds),
    ),
  );
  return cookies.join("; ");
}

/** The hidden fields of a page's forms, by name, as the browser sends them (the HTML's escapes undone). */
export function hiddenFields(html: string): Record<string, string> {
  const unescaped = (text: string) =>
    text
      .replaceAll("&quot;", '"')
      .replaceAll("&#x27;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  const fields = html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g);
  return Object.fromEntries([...fields].map(([, name = "", value = ""]) => [name, unescaped(value)]));
}
