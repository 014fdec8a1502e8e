import type { ReactElement } from "react";
import type { AppContext } from "../context";
import { deployEnvironment } from "../render";
import type { Refusal, ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";
import type { TokenState } from "../session/state";
import { appAuthorizeUrl } from "./authorization";
import { freshTokens } from "./tokens";

/** The signed-in user's usable tokens; the expiry modal when they cannot be refreshed; undefined without any. */
export async function signedIn(c: AppContext): Promise<TokenState | Refusal | undefined> {
  const tokens = await freshTokens(c);
  if (tokens === "absent") return undefined;
  if (tokens === "expired") return { refuse: { modal: "tokenExpired" } };
  return tokens;
}

/** architecture §4 "after MFA setup succeeds": the app's authorization as extSignIn (registered values only). */
export async function nextAfterSetup(c: AppContext): Promise<string> {
  const authRequest = await readSealed(c, "authRequest");
  if (authRequest) return appAuthorizeUrl(authRequest, undefined);
  return c.get("brand").fallBackUrls[deployEnvironment(c.env)];
}

/**
 * A screen for a signed-in user only: without the tokens cookie, the parameter problem (product §8); with an access
 * token that has expired and cannot be refreshed, the expiry modal (product §4/§8), and no bearer token is used.
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
