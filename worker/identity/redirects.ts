import type { ModalKey } from "../../messages/modals";
import type { AppContext } from "../context";
import { logEvent } from "../log";
import type { Show } from "../render";

/**
 * architecture §3/§8: a redirect_to from upstream is followed only to an exact allowed origin: the site
 * itself or the configured OAuth2 origin (when the upstream is reached by URL).
 */
export function allowedRedirect(c: AppContext, target: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const allowed = new Set([new URL(c.req.url).origin]);
  if (!c.env.IDENTITY) allowed.add(new URL(c.env.IDENTITY_API_ORIGIN).origin);
  return allowed.has(url.origin) ? url : undefined;
}

/**
 * After a successful login, sign-up or consent call: 303 to the upstream's redirect_to when it is allowed;
 * otherwise the page shows a product §8 modal ('もう一度やり直してください' when it is missing, unless the call
 * says otherwise: consent without redirect_to is the generic unexpected error).
 */
export function continueTo(
  c: AppContext,
  redirectTo: string | undefined,
  show: Show,
  whenMissing: ModalKey = "retry",
): Response | Promise<Response> {
  if (!redirectTo) return show({ modal: whenMissing });
  const url = allowedRedirect(c, redirectTo);
  if (!url) {
    logEvent("warn", "redirect_refused", {
      requestId: c.get("requestId"),
      origin: URL.canParse(redirectTo) ? new URL(redirectTo).origin : "unparsable",
    });
    return show({ modal: "unexpectedError" });
  }
  return c.redirect(url.toString(), 303);
}
