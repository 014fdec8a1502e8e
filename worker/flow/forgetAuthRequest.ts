import { getCookie } from "hono/cookie";
import type { AppContext } from "../context";
import { clearSealed, sealedCookies } from "../session/cookies";

/**
 * SPEC §2: the reset, reset-sent, new-password and change-e-mail-result pages first clear the stored auth request
 * (they are reached from a mail link, outside any app's authorization) and take the service from client_id.
 * Only a cookie that is there is cleared, so other pages' responses carry no needless Set-Cookie.
 */
export function forgetAuthRequest(c: AppContext): void {
  if (getCookie(c, sealedCookies.authRequest.name, "host") !== undefined) clearSealed(c, "authRequest");
}
