import { env, SELF } from "cloudflare:test";
import { type SealedCookieName, type SealedState, sealedCookies } from "../../worker/session/cookies";
import { parseSessionKeys } from "../../worker/session/keys";
import { seal } from "../../worker/session/sealed";

export const ORIGIN = "https://signin.test";

/** A cookie header value holding one sealed state, as the worker itself would have written it. */
export async function sealedCookie<N extends SealedCookieName>(
  which: N,
  value: SealedState<N>,
  ttlSeconds = 600,
): Promise<string> {
  const spec = sealedCookies[which];
  const token = await seal(spec.name, value, { keys: parseSessionKeys(env.SESSION_KEYS), ttlSeconds });
  return `__Host-${spec.name}=${token}`;
}

export function get(path: string, cookies: string[] = [], headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${ORIGIN}${path}`, {
    headers: { ...(cookies.length ? { Cookie: cookies.join("; ") } : {}), ...headers },
    redirect: "manual",
  });
}

export function postForm(
  path: string,
  form: Record<string, string>,
  cookies: string[] = [],
  origin = ORIGIN,
): Promise<Response> {
  return SELF.fetch(`${ORIGIN}${path}`, {
    method: "POST",
    body: new URLSearchParams(form),
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: origin,
      ...(cookies.length ? { Cookie: cookies.join("; ") } : {}),
    },
    redirect: "manual",
  });
}

export function setCookies(response: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const at = pair.indexOf("=");
    out.set(pair.slice(0, at), line);
  }
  return out;
}
