import type { z } from "zod/mini";
import type { AppContext } from "../context";
import { refreshTokens, type tokenResponse } from "../identity/client";
import { readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import type { TokenState } from "../session/state";
import { tokenClaims } from "./authorization";

// product §3 token state, §5 expiry: the tokens cookie lives no longer than its tokens can be used, and an access
// token is checked before every use (architecture §8).

/** The upstream's refresh-token lifetime (Hydra's default, and the emulator's); the cookie never outlives it. */
const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Keeps a token response in the tokens cookie; undefined when the access token is unusable (no expiry, or
 * already expired: product §5). Without a refresh token the cookie ends with the access token.
 */
export async function storeTokens(
  c: AppContext,
  clientId: string,
  tokens: z.infer<typeof tokenResponse>,
): Promise<TokenState | undefined> {
  const claims = tokenClaims(tokens.access_token);
  if (!claims) return undefined;
  const state: TokenState = {
    clientId,
    accessToken: tokens.access_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    expiresAt: claims.exp,
    scope: tokens.scope ?? "",
    tokenType: tokens.token_type,
    hashedUserName: await sha256Hex(claims.username),
    ...(claims.authTime === undefined ? {} : { authTime: claims.authTime }),
  };
  const lifetime = tokens.refresh_token ? REFRESH_TOKEN_LIFETIME_SECONDS : claims.exp - nowSeconds();
  await writeSealed(c, "tokens", state, lifetime);
  return state;
}

/**
 * The signed-in user's tokens with a usable access token: as stored while it lasts, else refreshed once with the
 * refresh token. `expired` when neither works (the product §2 expiry modal); `absent` when nobody is signed in.
 * `stored`: the tokens cookie, when the route has opened it already.
 */
export async function freshTokens(
  c: AppContext,
  stored: Promise<TokenState | undefined> = readSealed(c, "tokens"),
): Promise<TokenState | "expired" | "absent"> {
  const tokens = await stored;
  if (!tokens) return "absent";
  if (tokens.expiresAt > nowSeconds() + 5) return tokens;
  if (!tokens.refreshToken) return "expired";
  const refreshed = await refreshTokens(c, tokens.clientId, tokens.refreshToken);
  if (!refreshed.ok) return "expired";
  return (await storeTokens(c, tokens.clientId, refreshed.data)) ?? "expired";
}
