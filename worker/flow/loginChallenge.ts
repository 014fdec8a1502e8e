import { z } from "zod/mini";
import type { AppContext } from "../context";
import { challengeValue, queryValue } from "../queryParams";
import { type AuthRequest, viewSchema } from "../session/authRequest";
import { readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import { siteCallbackUrl } from "./authorization";

// product §2 entry, the OAuth2 server's login URL `/?login_challenge&client_id&view`: the challenge goes into this
// browser's sign-in or sign-up cookie and out of the address bar, and the browser goes on to the view's first
// screen. The login URL route (worker/routes/entry.tsx) does it, and so does the proxied authorization endpoint
// when the OAuth2 server answers this browser's own authorization with the login URL (worker/routes/upstreamProxy.ts),
// which saves the browser the hop through the login URL.

/** The OAuth2 server's login URL (product §2 entry, §5: all three are required). */
export const loginUrlQuery = z.object({ login_challenge: challengeValue, client_id: queryValue, view: viewSchema });
export type LoginUrlQuery = z.infer<typeof loginUrlQuery>;

/**
 * architecture §8: an authorization (its client and state) is this browser's when its auth request names them: the
 * site's own state for its own views, the app's for extSignIn (the site's extSignIn authorization after an own
 * view's sign-in carries the app's state too).
 */
export function authorizationOf(authRequest: AuthRequest, clientId: string, state: string | null): boolean {
  if (authRequest.query.client_id !== clientId || state === null) return false;
  return state === authRequest.own?.state || state === authRequest.query.state;
}

/** The screen a view starts at (product §2): sign-up for the sign-up view, sign-in for every other. */
export type FirstScreen = "signIn" | "signUp";

/** Keeps a login challenge this browser started in its cookies; answers the view's first screen. */
export async function keepLoginChallenge(
  c: AppContext,
  authRequest: AuthRequest,
  { login_challenge: loginChallenge, view }: LoginUrlQuery,
): Promise<FirstScreen> {
  // The consent this login may lead to is taken only by this browser (worker/routes/consent.tsx).
  await writeSealed(c, "authRequest", { ...authRequest, loginChallengeDigest: await sha256Hex(loginChallenge) });
  // product §2: the sign-up view keeps the challenge for sign-up; every other view signs in first.
  if (view === "signUp") {
    await writeSealed(c, "signUp", { loginChallenge });
    return "signUp";
  }
  await writeSealed(c, "signIn", { loginChallenge });
  return "signIn";
}

/** Keeps a login challenge this browser started in its cookies and sends the browser to the view's first screen. */
export async function takeLoginChallenge(c: AppContext, authRequest: AuthRequest, loginUrl: LoginUrlQuery) {
  return (await keepLoginChallenge(c, authRequest, loginUrl)) === "signUp"
    ? c.redirect("/signUp/checkEmail", 303)
    : c.redirect(`/signIn?${new URLSearchParams({ client_id: loginUrl.client_id })}`, 303);
}

/**
 * The authorization endpoint answered `authorize` (the query asked at `/oauth2/auth`) with a redirect to `location`.
 * When that is the site's own login URL and the authorization is this auth request's own (it names the client, the
 * state and the redirect URI the site itself asked with), answers what the login URL holds, for keepLoginChallenge;
 * the challenge was issued for this very request, so it is bound to this browser as the login URL's upstream check
 * would bind it. Anything else: undefined, and the browser follows the upstream's redirect as it is.
 */
export function loginUrlOfAuthorization(
  c: AppContext,
  authRequest: AuthRequest,
  authorize: URLSearchParams,
  location: string,
): LoginUrlQuery | undefined {
  const site = new URL(c.req.url).origin;
  if (!URL.canParse(location, site)) return undefined;
  const target = new URL(location, site);
  if (target.origin !== site || target.pathname !== "/" || target.hash !== "") return undefined;
  const loginUrl = loginUrlQuery.safeParse(Object.fromEntries(target.searchParams));
  if (!loginUrl.success || loginUrl.data.client_id !== authorize.get("client_id")) return undefined;
  if (!authorizationOf(authRequest, loginUrl.data.client_id, authorize.get("state"))) return undefined;
  const redirectUri = authorize.get("redirect_uri");
  if (redirectUri !== siteCallbackUrl(c) && redirectUri !== authRequest.redirectUri) return undefined;
  return loginUrl.data;
}

/** loginUrlOfAuthorization for the authorization a browser brought to the proxied endpoint: its stored auth request's. */
export async function loginUrlOfThisBrowser(
  c: AppContext,
  authorize: URLSearchParams,
  location: string | null,
): Promise<{ authRequest: AuthRequest; loginUrl: LoginUrlQuery } | undefined> {
  const authRequest = location === null ? undefined : await readSealed(c, "authRequest");
  const loginUrl = authRequest && location !== null && loginUrlOfAuthorization(c, authRequest, authorize, location);
  return authRequest && loginUrl ? { authRequest, loginUrl } : undefined;
}
