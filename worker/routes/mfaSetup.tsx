import { MfaSetup } from "../../pages/MfaSetup";
import { MfaSetupSms } from "../../pages/MfaSetupSms";
import { MfaSetupTotp } from "../../pages/MfaSetupTotp";
import { brandById } from "../../themes/brands";
import { appAuthorizeUrl, appRedirectUri } from "../flow/authorization";
import type { emptyForm } from "../formFields";
import type { FormHandler, ScreenLoader } from "../routeKinds";
import type { AuthRequest } from "../session/authRequest";
import { readSealed } from "../session/cookies";
import type { TokenState } from "../session/state";

// SPEC §2/§4 MFA setup: only for a signed-in user (the tokens cookie); a missing token is the parameter problem
// (SPEC §8). The choice screen offers only the brand's allowed factors (SPEC §6). Requesting the secret and
// confirming the code are the account-journeys issue's.

export const mfaSetupScreen: ScreenLoader<TokenState> = async (c) => {
  const tokens = await readSealed(c, "tokens");
  return tokens ? { state: tokens, page: <MfaSetup /> } : undefined;
};

export const totpSetupScreen: ScreenLoader<TokenState> = async (c) => {
  const tokens = await readSealed(c, "tokens");
  // Until the identity API issues the secret, the page shows the spinner in its place.
  return tokens ? { state: tokens, page: <MfaSetupTotp /> } : undefined;
};

export const smsSetupScreen: ScreenLoader<TokenState> = async (c) => {
  const tokens = await readSealed(c, "tokens");
  return tokens ? { state: tokens, page: <MfaSetupSms /> } : undefined;
};

/** 'Set up later' needs the tokens and the app's auth request. */
export const skipScreen: ScreenLoader<AuthRequest> = async (c) => {
  const [tokens, authRequest] = await Promise.all([readSealed(c, "tokens"), readSealed(c, "authRequest")]);
  return tokens && authRequest ? { state: authRequest, page: <MfaSetup /> } : undefined;
};

/**
 * SPEC §4 skip path ('set up later', only where NONE is allowed): the MFA-setup view returns to the app's
 * URL; every other view authorizes again for the app with prompt cleared, so the app gets its code.
 */
export const skipMfaSetup: FormHandler<AuthRequest, typeof emptyForm> = (c, { state: authRequest, show }) => {
  // The service of the app's request decides, not whichever brand the page was last shown in.
  if (!(brandById(authRequest.serviceId) ?? c.get("brand")).mfaTypes.includes("NONE")) return show({ status: 403 });
  if (authRequest.query.view === "mfaSetUp") return c.redirect(appRedirectUri(authRequest.query), 303);
  return c.redirect(appAuthorizeUrl(authRequest, undefined), 303);
};
