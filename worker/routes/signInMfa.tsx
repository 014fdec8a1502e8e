import { z } from "zod/mini";
import { SignInMfa } from "../../pages/SignInMfa";
import { RESTART_PATH } from "../flow/authorization";
import { loginStep } from "../flow/continueLogin";
import { ruleField } from "../formFields";
import { isRefusal } from "../identity/outcomes";
import { formStep, type ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";

// product §2 SignInMFA, §4: the login answered mfa_sms or mfa_totp, and the sign-in cookie holds that session and type.

type MfaState = SignInSession & { username: string; mfa: NonNullable<SignInSession["mfa"]> };

const signInMfaScreen: ScreenLoader<MfaState> = async (c) => {
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  // The code is posted with the login ID the password step was accepted with (product §7 login body).
  if (!signIn?.mfa || signIn.username === undefined) return undefined;
  const restartHref = authRequest ? RESTART_PATH : undefined;
  return {
    state: { ...signIn, username: signIn.username, mfa: signIn.mfa },
    page: <SignInMfa type={signIn.mfa.type} restartHref={restartHref} />,
  };
};

export const signInMfa = formStep({
  screen: signInMfaScreen,
  form: () => z.object({ mfaCode: ruleField("code") }),
  subject: ({ state }) => state.mfa.session,
  submit: (c, { state, form, show }) => {
    const { type, session } = state.mfa;
    const flow = type === "SMS" ? "mfa_sms" : "mfa_totp";
    return loginStep(c, state, { flow, username: state.username, session, code: form.mfaCode }, show, (outcome) => {
      if (!isRefusal(outcome)) return undefined;
      // The session survives a wrong code (the user may try again); an expired code needs a new login.
      const error = !outcome.ok && outcome.problem.type === "expired_code" ? "mfaCode.expired" : "mfaCode.wrong";
      return show({ form: { values: {}, errors: { mfaCode: error } }, status: 401 });
    });
  },
});
