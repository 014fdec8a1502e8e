import { getCookie } from "hono/cookie";
import type { ReactElement } from "react";
import type { z } from "zod/mini";
import type { AppContext } from "../context";
import type { ScreenLoader } from "../routeKinds";
import { clearSealed, sealedCookies } from "../session/cookies";

/**
 * product §2: the reset, reset-sent, new-password and change-e-mail-result pages first clear the stored auth request
 * (they are reached from a mail link, outside any app's authorization) and take the brand from client_id.
 * Only a cookie that is there is cleared, so other pages' responses carry no needless Set-Cookie.
 */
export function forgetAuthRequest(c: AppContext): void {
  if (getCookie(c, sealedCookies.authRequest.name, "host") !== undefined) clearSealed(c, "authRequest");
}

/** A page of that list: its query checked by the route, the auth request forgotten, the page made from the query. */
export function mailLinkScreen<Q extends z.ZodMiniType>(
  query: Q,
  page: (query: z.infer<Q>) => ReactElement,
): { query: Q; screen: ScreenLoader<undefined, z.infer<Q>> } {
  return {
    query,
    screen: async (c, checked) => {
      forgetAuthRequest(c);
      return { state: undefined, page: page(checked) };
    },
  };
}
