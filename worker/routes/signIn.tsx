import { z } from "zod/mini";
import { SignIn } from "../../pages/SignIn";
import type { AppContext } from "../context";
import { clientIdFor } from "../flow/clientId";
import { loginStep } from "../flow/continueLogin";
import { systemTransferNotice } from "../flow/systemTransfer";
import { brandRules, ruleField } from "../formFields";
import { isRefusal, isSystemTransfer } from "../identity/outcomes";
import { normalisedSubject } from "../rateLimit";
import { formStep, type ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";

// SPEC §2 SignIn, §4: login ID and password. Reached from the OAuth2 server's login URL (the sign-in cookie)
// or from sign-up's 'already have an account' link (the sign-up cookie holds the same challenge).

interface SignInState {
  loginChallenge: string;
  clientId: string | undefined;
}

export const signInScreen: ScreenLoader<SignInState> = async (c) => {
  const [signIn, signUp, authRequest] = await Promise.all([
    readSealed(c, "signIn"),
    readSealed(c, "signUp"),
    readSealed(c, "authRequest"),
  ]);
  const loginChallenge = signIn?.loginChallenge ?? signUp?.loginChallenge;
  if (!loginChallenge) return undefined;
  const clientId = clientIdFor(c, authRequest);
  const username = authRequest?.query.autoFillUserName ?? signIn?.username;
  return { state: { loginChallenge, clientId }, page: <SignIn clientId={clientId} username={username} /> };
};

export const signIn = formStep({
  screen: signInScreen,
  form: (c: AppContext) => z.object({ username: ruleField("loginId"), password: ruleField("password", brandRules(c)) }),
  subject: ({ form }) => normalisedSubject(form.username),
  submit: (c, { state, form, show }) =>
    loginStep(
      c,
      { loginChallenge: state.loginChallenge, username: form.username },
      { flow: "email_password", ...form },
      show,
      (outcome) => {
        if (isSystemTransfer(outcome)) return systemTransferNotice(c, state.clientId, form.username, show);
        // A locked account answers exactly like a wrong password (SPEC §8 failed login).
        if (isRefusal(outcome)) return show({ modal: "loginFailed" });
        return undefined;
      },
    ),
});
