import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { allowAppFormAction } from "../flow/authorization";
import { readSealed, sealedCookies } from "../session/cookies";

/**
 * A form posted on these pages may end, after the OAuth2 server's redirects, at the app's redirect URI: the stored
 * app's origin joins form-action's 'self' (architecture §8). The app's start adds the one it stores itself.
 *
 * @example app.use(appFormAction())
 */
export function appFormAction(): MiddlewareHandler<AppEnv> {
  return async function appFormAction(c, next) {
    if (getCookie(c, sealedCookies.authRequest.name, "host") !== undefined) {
      const authRequest = await readSealed(c, "authRequest");
      if (authRequest) allowAppFormAction(c, authRequest);
    }
    await next();
  };
}
