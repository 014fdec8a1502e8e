import { MfaSetup } from "../../pages/MfaSetup";
import { MfaSetupSms } from "../../pages/MfaSetupSms";
import { MfaSetupTotp } from "../../pages/MfaSetupTotp";
import { brandById } from "../../themes/brands";
import { appAuthorizeUrl } from "../flow/authorization";
import { signedInScreen } from "../flow/signedIn";
import { emptyForm } from "../formFields";
import { formStep } from "../routeKinds";
import { readSealed } from "../session/cookies";

// SPEC §2/§4 MFA setup: only for a signed-in user (the tokens cookie); a missing token is the parameter problem
// (SPEC §8). The choice screen offers only the brand's allowed factors (SPEC §6). Requesting the secret and
// confirming the code are the account-journeys issue's.

export const mfaSetup = signedInScreen(<MfaSetup />);
// Until the identity API issues the secret, the page shows the spinner in its place.
export const totpSetup = signedInScreen(<MfaSetupTotp />);
export const smsSetup = signedInScreen(<MfaSetupSms />);

/**
 * SPEC §4 skip path ('set up later', only where NONE is allowed; it needs the tokens and the app's auth request):
 * the MFA-setup view returns to the app's URL; every other view authorizes again for the app with prompt cleared,
 * so the app gets its code.
 */
export const skipMfaSetup = formStep({
  screen: async (c) => {
    const [tokens, authRequest] = await Promise.all([readSealed(c, "tokens"), readSealed(c, "authRequest")]);
    return tokens && authRequest ? { state: authRequest, page: <MfaSetup /> } : undefined;
  },
  form: emptyForm,
  submit: (c, { state: authRequest, show }) => {
    // The service of the app's request decides, not whichever brand the page was last shown in.
    const brand = brandById(authRequest.serviceId) ?? c.get("brand");
    if (!brand.mfaTypes.includes("NONE")) return show({ status: 403 });
    if (authRequest.query.view === "mfaSetUp") return c.redirect(authRequest.redirectUri, 303);
    return c.redirect(appAuthorizeUrl(authRequest, undefined), 303);
  },
});
