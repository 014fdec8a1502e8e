import { z } from "zod/mini";
import { RegisterEmail } from "../../pages/RegisterEmail";
import type { AppContext } from "../context";
import { accountFailure, accountSubject } from "../flow/account";
import { appAuthorizeUrl } from "../flow/authorization";
import { signedInScreen } from "../flow/signedIn";
import { ruleField } from "../formFields";
import { confirmEmailCode, sendEmailCode } from "../identity/client";
import { isInvalidInput } from "../identity/outcomes";
import { normalisedSubject } from "../rateLimit";
import { deployEnvironment } from "../render";
import { formStep } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import type { TokenState } from "../session/state";

// product §2 RegisterEmail (after a sign-in with an unverified address; /callback marks that MFA setup follows):
// send a code to an address (POST user/email), then confirm it (POST user/email/confirm), both with the bearer
// token of the tokens cookie. Without that cookie nothing is called (product §6): the parameter problem. Where the
// code went is kept in a sealed cookie for the user it was sent for, so the page can say so without script and
// nothing of it is in the URL.

/** The address a code was sent to for this user, if any. */
async function codeSentTo(c: AppContext, tokens: TokenState): Promise<string | undefined> {
  const sent = await readSealed(c, "registerEmail");
  return sent?.hashedUserName === tokens.hashedUserName ? sent.email : undefined;
}

const registerEmailScreen = signedInScreen(async (c, tokens) => <RegisterEmail sentTo={await codeSentTo(c, tokens)} />);

export const sendCode = formStep({
  ...registerEmailScreen,
  form: () => z.object({ email: ruleField("email") }),
  // The mailbox the code goes to is whom a flood would be about.
  subject: ({ form }) => normalisedSubject(form.email),
  submit: async (c, { state, form, show }) => {
    const outcome = await sendEmailCode(c, state.accessToken, form.email);
    if (outcome.ok) {
      await writeSealed(c, "registerEmail", { email: form.email, hashedUserName: state.hashedUserName });
      return c.redirect("/registerEmail", 303);
    }
    if (outcome.problem.type === "already_registered") {
      return show({ form: { values: {}, errors: { email: "email.taken" } }, status: 409 });
    }
    if (isInvalidInput(outcome)) {
      return show({ form: { values: {}, errors: { email: "email.invalid" } } });
    }
    return show(accountFailure(outcome));
  },
});

/**
 * product §2 "then the next step of the flow": MFA setup when /callback marked it, else the app's authorization as
 * extSignIn with its stored, registered values; without an auth request (it lasts an hour), the service top.
 */
async function nextStep(c: AppContext): Promise<string> {
  const authRequest = await readSealed(c, "authRequest");
  if (authRequest?.navigateMFASetupFlow) return "/mfa/setup";
  if (authRequest) return appAuthorizeUrl(authRequest, undefined);
  return c.get("brand").fallBackUrls[deployEnvironment(c.env)];
}

export const registerEmail = formStep({
  ...registerEmailScreen,
  form: () => z.object({ code: ruleField("code") }),
  subject: ({ state }) => accountSubject(state),
  submit: async (c, { state, form, show }) => {
    const outcome = await confirmEmailCode(c, state.accessToken, form.code);
    if (outcome.ok) {
      clearSealed(c, "registerEmail");
      return show({ modal: { key: "emailCodeConfirmed", href: await nextStep(c) } });
    }
    if (outcome.problem.type === "invalid_code" || outcome.problem.type === "expired_code") {
      const error = outcome.problem.type === "expired_code" ? "code.expired" : "code.wrong";
      return show({ form: { values: {}, errors: { code: error } }, status: 401 });
    }
    return show(accountFailure(outcome));
  },
});
