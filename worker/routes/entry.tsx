import { z } from "zod/mini";
import { brandForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { startAuthorization } from "../flow/authorization";
import { authorizationOf, loginUrlQuery, takeLoginChallenge } from "../flow/loginChallenge";
import { loginRequest } from "../identity/client";
import { failure } from "../identity/outcomes";
import { errorPage, type Outcome, parameterProblem } from "../render";
import { type AppAuthQuery, type AuthRequest, appAuthQuerySchema } from "../session/authRequest";
import { readSealed } from "../session/cookies";

// SPEC §2 entry. `/` is both the app's start (the app's query, ARCHITECTURE §4) and the OAuth2 server's
// login URL (`?login_challenge&client_id&view`); `/{tenantId}/auth` is the app's start for a named service. A browser
// whose own authorization the OAuth2 server answers with the login URL skips it: the proxied authorization endpoint
// takes the challenge itself (worker/flow/loginChallenge.ts). The login URL stays for every other client and case.

export const entryQuery = z.union([
  z.extend(appAuthQuerySchema, { login_challenge: z.optional(z.never()) }),
  loginUrlQuery,
]);

export async function enter(c: AppContext, query: z.infer<typeof entryQuery>): Promise<Response> {
  if (query.login_challenge === undefined) {
    // The app's start without a tenant in the path: the service comes from its client_id.
    const brand = brandForClientId(query.client_id);
    return brand ? startAuthorization(c, brand, query) : parameterProblem(c);
  }
  const started = await startedHere(c, query.login_challenge, query.client_id);
  if (!started) return parameterProblem(c);
  if (!("query" in started)) return errorPage(c, started);
  return takeLoginChallenge(c, started, query);
}

/**
 * ARCHITECTURE §8: a login challenge is used only by the browser that started its authorization. The upstream's
 * login request names the authorization's client and state; this browser's auth request must hold the same
 * (the site's own state for its own views, the app's for extSignIn). A link planted from elsewhere fails here.
 * An upstream that cannot answer is not a planted link: its SPEC §8 modal is the outcome instead.
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
  const state = new URL(asked.data.request_url).searchParams.get("state");
  return authorizationOf(authRequest, clientId, state) ? authRequest : undefined;
}

/** The app's start for the service in the path; its client_id must belong to that service. */
export function startForTenant(c: AppContext, query: AppAuthQuery): Promise<Response> {
  const brand = c.get("brand");
  if (brandForClientId(query.client_id)?.id !== brand.id) return parameterProblem(c);
  return startAuthorization(c, brand, query);
}
