import type { ReactElement } from "react";
import type { ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";
import type { TokenState } from "../session/state";

/** A screen for a signed-in user only (the tokens cookie); without it, the parameter problem (SPEC §8). */
export function signedInScreen(page: ReactElement): { screen: ScreenLoader<TokenState> } {
  return {
    screen: async (c) => {
      const tokens = await readSealed(c, "tokens");
      return tokens ? { state: tokens, page } : undefined;
    },
  };
}
