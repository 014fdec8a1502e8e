import { z } from "zod/mini";
import { ChangePasswordInForceChangePassword } from "../../pages/ChangePasswordInForceChangePassword";
import { loginStep } from "../flow/continueLogin";
import { ruleField } from "../formFields";
import { formStep, type ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";

// product §2/§4: the login answered new_password and the sign-in cookie holds that session. The new password
// re-posts the login with flow new_password; an MFA user goes on to the second factor.

type ForcedState = SignInSession & { username: string; forceChangePassword: { session: string } };

const forcedPasswordScreen: ScreenLoader<ForcedState> = async (c) => {
  const signIn = await readSealed(c, "signIn");
  // The new password is posted with the login ID the password step was accepted with (product §7 login body).
  if (!signIn?.forceChangePassword || signIn.username === undefined) return undefined;
  return {
    state: { ...signIn, username: signIn.username, forceChangePassword: signIn.forceChangePassword },
    page: <ChangePasswordInForceChangePassword loginId={signIn.username} />,
  };
};

export const forcedPassword = formStep({
  screen: forcedPasswordScreen,
  form: (rules) => z.object({ newPassword: ruleField("password", rules) }),
  subject: ({ state }) => state.forceChangePassword.session,
  chosenPassword: ({ state, form }) => ({
    field: "newPassword",
    password: form.newPassword,
    identities: [state.username],
  }),
  submit: (c, { state, form, show }) => {
    const body = {
      flow: "new_password",
      username: state.username,
      session: state.forceChangePassword.session,
      password: form.newPassword,
    } as const;
    return loginStep(c, state, body, show, () => undefined);
  },
});
