import type { ReactElement } from "react";
import type { AppContext } from "../context";
import type { ScreenLoader } from "../routeKinds";
import type { TokenState } from "../session/state";
import { freshTokens } from "./tokens";

/**
 * A screen for a signed-in user only: without the tokens cookie, the parameter problem (SPEC §8); with an access
 * token that has expired and cannot be refreshed, the expiry modal (SPEC §4/§8), and no bearer token is used.
 * The page may depend on the user's other state (a function of the fresh tokens).
 */
export function signedInScreen(page: ReactElement | ((c: AppContext, tokens: TokenState) => Promise<ReactElement>)): {
  screen: ScreenLoader<TokenState>;
} {
  return {
    screen: async (c) => {
      const tokens = await freshTokens(c);
      if (tokens === "absent") return undefined;
      if (tokens === "expired") return { refuse: { modal: "tokenExpired" } };
      return { state: tokens, page: typeof page === "function" ? await page(c, tokens) : page };
    },
  };
}
