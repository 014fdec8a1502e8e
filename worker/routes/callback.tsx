import { z } from "zod/mini";
import { brandById } from "../../themes/brands";
import type { Brand, MfaType } from "../../themes/schema";
import type { AppContext } from "../context";
import { appAuthorizeUrl, siteCallbackUrl, tokenClaims } from "../flow/authorization";
import { storeTokens } from "../flow/tokens";
import { exchangeCode, type Profile, profile } from "../identity/client";
import { failure } from "../identity/outcomes";
import { challengeValue, queryValue, scopeValue, stateValue } from "../queryParams";
import { errorPage, parameterProblem } from "../render";
import type { AuthRequest } from "../session/authRequest";
import { readSealed, writeSealed } from "../session/cookies";

// product §2 callback and "After sign-in": the code of the site's own authorization becomes the tokens cookie,
// then the stored view decides where the user goes next (architecture §4 journey map).

export const callbackQuery = z.object({
  code: challengeValue,
  state: stateValue,
  scope: z.optional(scopeValue),
  client_id: z.optional(queryValue),
});

const preferredToMfaType: Record<Profile["preferred_mfa_setting"], MfaType> = {
  totp: "TOTP",
  sms: "SMS",
  none: "NONE",
};

const AFTER_OWN_VIEW: Partial<Record<AuthRequest["query"]["view"], string>> = {
  signUp: "/mfa/setup",
  mfaSetUp: "/mfa/setup",
  passwordChange: "/changePassword",
  emailChange: "/changeEmail",
  passkeys: "/passkeys",
  security: "/security",
};

async function afterSignIn(
  c: AppContext,
  authRequest: AuthRequest,
  brand: Brand,
  accessToken: string,
): Promise<Response> {
  const next = AFTER_OWN_VIEW[authRequest.query.view];
  if (next) return c.redirect(next, 303);
  // The partner service skips the e-mail-verified and MFA checks (product §1).
  if (brand.consentTarget) return c.redirect(appAuthorizeUrl(authRequest, undefined), 302);
  const found = await profile(c, accessToken);
  // product §7: a profile answer other than 200 is the unexpected-error modal, whatever it was (504 when it timed out).
  if (!found.ok) {
    return errorPage(c, {
      modal: "unexpectedError",
      status: found.unavailable === "timeout" ? 504 : undefined,
    });
  }
  if (!found.data.email_verified) {
    await writeSealed(c, "authRequest", { ...authRequest, navigateMFASetupFlow: true });
    return c.redirect("/registerEmail", 303);
  }
  const preferred = preferredToMfaType[found.data.preferred_mfa_setting];
  // A passkey sign-in (acr `phr`) is a second factor in itself, whatever the brand requires: its customer is not sent
  // to set up a code as well (docs/passkeys.md, "Passkey first"). A password alone is one factor, whoever signs in.
  const byPasskey = tokenClaims(accessToken)?.acr === "phr";
  if (authRequest.navigateMFASetupFlow || !(byPasskey || brand.mfaTypes.includes(preferred)))
    return c.redirect("/mfa/setup", 303);
  return c.redirect(appAuthorizeUrl(authRequest, undefined), 302);
}

export async function receiveCallback(c: AppContext, query: z.infer<typeof callbackQuery>): Promise<Response> {
  const authRequest = await readSealed(c, "authRequest");
  // architecture §8: the brand after sign-in is the stored request's, never the callback query's.
  const brand = authRequest ? brandById(authRequest.serviceId) : undefined;
  if (!authRequest?.own || !brand || query.state !== authRequest.own.state) {
    return parameterProblem(c, "callbackParameterError");
  }
  c.set("brand", brand);
  if (query.client_id !== undefined && query.client_id !== authRequest.query.client_id) {
    return parameterProblem(c, "callbackParameterError");
  }
  const exchanged = await exchangeCode(c, {
    clientId: authRequest.query.client_id,
    code: query.code,
    redirectUri: siteCallbackUrl(c),
    codeVerifier: authRequest.own.codeVerifier,
  });
  // product §2: a refused exchange is the parameter problem; an upstream that cannot answer is its product §8 modal.
  if (!exchanged.ok && (exchanged.unavailable || exchanged.status >= 500)) return errorPage(c, failure(exchanged));
  if (!exchanged.ok) return parameterProblem(c, "callbackParameterError");
  const tokens = await storeTokens(c, authRequest.query.client_id, exchanged.data);
  if (!tokens) return errorPage(c, { modal: "tokenExpired" });
  return afterSignIn(c, authRequest, brand, tokens.accessToken);
}
