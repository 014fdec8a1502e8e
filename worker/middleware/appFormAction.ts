import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { appOriginForCsp } from "../flow/authorization";
import { readSealed, sealedCookies } from "../session/cookies";

/**
 * A form posted on these pages may end, after the OAuth2 server's redirects, at the app's redirect URI;
 * browsers check every hop against form-action, so the stored app's origin joins 'self' (ARCHITECTURE §8).
 *
 * @example app.use(appFormAction())
 */
export function appFormAction(): MiddlewareHandler<AppEnv> {
  return async function appFormAction(c, next) {
    if (getCookie(c, sealedCookies.authRequest.name, "host") !== undefined) {
      const authRequest = await readSealed(c, "authRequest");
      const origin = authRequest ? appOriginForCsp(authRequest.redirectUri) : undefined;
      if (origin) c.set("formActionOrigins", [...c.get("formActionOrigins"), origin]);
    }
    await next();
  };
}
