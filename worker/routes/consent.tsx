import { z } from "zod/mini";
import { Consent } from "../../pages/Consent";
import { brandForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { emptyForm } from "../formFields";
import { acceptConsent, consentRequest } from "../identity/client";
import { failure } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { challengeValue, queryValue, scopeValue } from "../queryParams";
import { parameterProblem, renderPage } from "../render";
import { formStep, type ScreenLoader } from "../routeKinds";
import type { AuthRequest } from "../session/authRequest";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import type { ConsentState } from "../session/state";

// product §2 Consent: the OAuth2 server sends the partner service's user here with a consent challenge. The
// challenge goes into a sealed cookie and out of the address bar at once, so no page or script sees it.

/**
 * The OAuth2 server's consent link carries the challenge (its client_id and scope are not trusted); the page it
 * then redirects to carries only the client_id, for the brand.
 */
export const consentQuery = z.object({
  client_id: z.optional(queryValue),
  scope: z.optional(scopeValue),
  consent_challenge: z.optional(challengeValue),
});

const consentScreen: ScreenLoader<ConsentState> = async (c) => {
  const consent = await readSealed(c, "consent");
  return consent ? { state: consent, page: <Consent clientId={consent.clientId} /> } : undefined;
};

export async function showConsent(c: AppContext, query: z.infer<typeof consentQuery>): Promise<Response> {
  if (query.consent_challenge === undefined) {
    const loaded = await consentScreen(c, undefined);
    return loaded && "page" in loaded ? renderPage(c, loaded.page) : parameterProblem(c);
  }
  // What is asked, and for which client, comes from the upstream's consent request, never from the link.
  const asked = await consentRequest(c, query.consent_challenge);
  if (!asked.ok) return renderPage(c, <Consent />, failure(asked));
  const { client_id: clientId, requested_scope: scopes } = asked.data;
  // The consent screen of one brand never asks consent for another brand's client.
  if (brandForClientId(clientId)?.id !== c.get("brand").id) return parameterProblem(c);
  // architecture §8: a consent challenge is used only by a browser that started an authorization for its client
  // (the auth-request cookie set at the entry) and only for the login made in it. A link planted in another
  // browser, or from another user's login, fails here.
  const authRequest = await readSealed(c, "authRequest");
  if (authRequest?.query.client_id !== clientId) return parameterProblem(c);
  if (!(await loginMadeHere(c, authRequest, asked.data))) return parameterProblem(c);
  await writeSealed(c, "consent", { consentChallenge: query.consent_challenge, clientId, scope: scopes.join(" ") });
  return c.redirect(`/${c.get("brand").id}/consent?${new URLSearchParams({ client_id: clientId })}`, 303);
}

/**
 * The consent's login is this browser's: the login challenge it took at the login URL, or, where the upstream's
 * session skipped the login (the partner's app authorization right after the site's own sign-in), the user
 * whose tokens this browser holds.
 */
async function loginMadeHere(
  c: AppContext,
  authRequest: AuthRequest,
  asked: { subject: string; login_challenge?: string | undefined },
): Promise<boolean> {
  if (asked.login_challenge !== undefined)
    return (await sha256Hex(asked.login_challenge)) === authRequest.loginChallengeDigest;
  const tokens = await readSealed(c, "tokens");
  return tokens !== undefined && (await sha256Hex(asked.subject)) === tokens.hashedUserName;
}

export const consent = formStep({
  screen: consentScreen,
  form: emptyForm,
  submit: async (c, { state, show }) => {
    const scopes = state.scope.split(" ").filter(Boolean);
    const agreed = await acceptConsent(c, state.consentChallenge, scopes, deviceId(c));
    if (!agreed.ok) return show(failure(agreed));
    // product §8: consent without redirect_to is the generic unexpected error; the consent stays for another try.
    if (!agreed.data.redirect_to) return show({ modal: "unexpectedError" });
    // The challenge is spent once the upstream answered; cleared first, as the redirect copies the headers set so far.
    clearSealed(c, "consent");
    // product §8: consent without redirect_to is the generic unexpected error, not "try again".
    return continueTo(c, agreed.data.redirect_to, show, "unexpectedError");
  },
});
