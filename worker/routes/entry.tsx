import { z } from "zod/mini";
import { brandForClientId } from "../../themes/brands";
import type { Brand } from "../../themes/schema";
import type { AppContext } from "../context";
import { newAuthorization } from "../flow/authorization";
import {
  authorizationOf,
  type FirstScreen,
  keepLoginChallenge,
  loginUrlOfAuthorization,
  loginUrlQuery,
  takeLoginChallenge,
} from "../flow/loginChallenge";
import { authorize, loginRequest } from "../identity/client";
import { failure } from "../identity/outcomes";
import { errorPage, type Outcome, parameterProblem, renderPage } from "../render";
import type { ScreenLoader } from "../routeKinds";
import { type AppAuthQuery, type AuthRequest, appAuthQuerySchema } from "../session/authRequest";
import { readSealed, writeSealed } from "../session/cookies";

// product §2 entry. `/` is both the app's start (the app's query, architecture §4) and the OAuth2 server's
// login URL (`?login_challenge&client_id&view`); `/{serviceId}/auth` is the app's start for a named brand. The app's
// start asks the authorization endpoint itself and answers the first screen with no redirect (one hop less on a
// slow phone; docs/security.md "Redirects"). The login URL stays for every other client and case.

export const entryQuery = z.union([
  z.extend(appAuthQuerySchema, { login_challenge: z.optional(z.never()) }),
  loginUrlQuery,
]);

export async function enter(
  c: AppContext,
  query: z.infer<typeof entryQuery>,
  firstScreens: FirstScreens,
): Promise<Response> {
  if (query.login_challenge === undefined) {
    // The app's start without a brand in the path: the brand comes from its client_id.
    const brand = brandForClientId(query.client_id);
    return brand ? startAuthorization(c, brand, query, firstScreens) : parameterProblem(c);
  }
  const started = await startedHere(c, query.login_challenge, query.client_id);
  if (!started) return parameterProblem(c);
  if (!("query" in started)) return errorPage(c, started);
  return takeLoginChallenge(c, started, query);
}

/**
 * architecture §8: a login challenge is used only by the browser that started its authorization. The upstream's
 * login request names the authorization's client and state; this browser's auth request must hold the same
 * (the site's own state for its own views, the app's for extSignIn). A link planted from elsewhere fails here.
 * An upstream that cannot answer is not a planted link: its product §8 modal is the outcome instead.
 */
async function startedHere(
  c: AppContext,
  loginChallenge: string,
  clientId: string,
): Promise<AuthRequest | Outcome | undefined> {
  const authRequest = await readSealed(c, "authRequest");
  if (!authRequest || authRequest.query.client_id !== clientId) return undefined;
  const asked = await loginRequest(c, loginChallenge);
  if (!asked.ok && (asked.unavailable || asked.status >= 500)) return failure(asked);
  if (!asked.ok || asked.data.client_id !== clientId) return undefined;
  // docs/operations.md "On the site": an operation's login is taken only by its confirmation screen, which the app's
  // start of a pushed request answers itself: never through the login URL to a sign-in page that does not show it.
  if (asked.data.authorization_details !== undefined) return undefined;
  const state = new URL(asked.data.request_url).searchParams.get("state");
  return authorizationOf(authRequest, clientId, state) ? authRequest : undefined;
}

/**
 * The first screen of each view, as its own route loads it (from the sign-in or sign-up cookie just written); the
 * route table hands them over, as route modules do not import each other.
 */
export type FirstScreens = Record<FirstScreen, ScreenLoader<unknown>>;

/**
 * product §2 entry, the app's start: a new auth request, and the OAuth2 server's authorization endpoint asked on the
 * browser's behalf (with its OAuth2 session). When the server answers with the login URL for this very
 * authorization, the challenge goes into this browser's cookies and the first screen is this response: no redirect
 * before the form. Any other redirect (a remembered session's code or an error, to the registered redirect URI) is
 * the browser's; a failing server is its product §8 modal, with the auth request kept for its retry.
 */
async function startAuthorization(
  c: AppContext,
  brand: Brand,
  query: AppAuthQuery,
  firstScreens: FirstScreens,
): Promise<Response> {
  const started = await newAuthorization(c, brand, query);
  if (!started) return parameterProblem(c);
  const { authRequest, authorize: authorizeUrl } = started;
  const asked = await authorize(c, authorizeUrl);
  const authorizeQuery = new URL(authorizeUrl, c.req.url).searchParams;
  const loginUrl = asked.ok && loginUrlOfAuthorization(c, authRequest, authorizeQuery, asked.data.location);
  if (loginUrl) {
    const loaded = await firstScreens[await keepLoginChallenge(c, authRequest, loginUrl)](c, undefined);
    if (!loaded || !("page" in loaded)) return parameterProblem(c);
    // The address is the app's own start; referrers still never leave the site (worker/middleware/securityHeaders.ts).
    c.set("referrerPolicy", "same-origin");
    return renderPage(c, loaded.page);
  }
  await writeSealed(c, "authRequest", authRequest);
  // A refusal of the authorization (4xx but the server's own attempt cap) is the parameter problem, not its page.
  const refused = asked.status >= 400 && asked.status < 500 && asked.status !== 429;
  if (!asked.ok) return errorPage(c, refused ? { modal: "parameterError" } : failure(asked));
  return towardsApp(asked.data.location, authRequest.redirectUri, new URL(c.req.url).origin)
    ? c.redirect(asked.data.location, 302)
    : errorPage(c, { modal: "unexpectedError", status: 502 });
}

/** Where the authorization endpoint may send the browser from the app's start: this site, or the app's registered URI. */
function towardsApp(location: string, redirectUri: string, site: string): boolean {
  if (!URL.canParse(location, site)) return false;
  const target = new URL(location, site);
  if (target.origin === site) return true;
  const app = new URL(redirectUri);
  return target.protocol === app.protocol && target.host === app.host && target.pathname === app.pathname;
}

/** The app's start for the brand in the path; its client_id must belong to that brand. */
export function startForBrand(c: AppContext, query: AppAuthQuery, firstScreens: FirstScreens): Promise<Response> {
  const brand = c.get("brand");
  if (brandForClientId(query.client_id)?.id !== brand.id) return parameterProblem(c);
  return startAuthorization(c, brand, query, firstScreens);
}
