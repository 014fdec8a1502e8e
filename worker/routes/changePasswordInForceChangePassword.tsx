import { z } from "zod";
import { ChangePasswordInForceChangePassword } from "../../pages/ChangePasswordInForceChangePassword";
import type { AppContext } from "../context";
import { loginStep } from "../flow/continueLogin";
import { brandRules, ruleField } from "../formFields";
import type { FormHandler, ScreenLoader } from "../routeKinds";
import { readSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";

// SPEC §2/§4: the login answered new_password and the sign-in cookie holds that session. The new password
// re-posts the login with flow new_password; an MFA user goes on to the second factor.

type ForcedState = SignInSession & { forceChangePassword: { session: string } };

export const forcedPasswordScreen: ScreenLoader<ForcedState> = async (c) => {
  const signIn = await readSealed(c, "signIn");
  if (!signIn?.forceChangePassword) return undefined;
  return {
    state: { ...signIn, forceChangePassword: signIn.forceChangePassword },
    page: <ChangePasswordInForceChangePassword />,
  };
};

export const forcedPasswordForm = (c: AppContext) => z.object({ newPassword: ruleField("password", brandRules(c)) });

export const submitForcedPassword: FormHandler<ForcedState, typeof forcedPasswordForm> = (c, { state, form, show }) =>
  loginStep(
    c,
    state,
    { flow: "new_password", session: state.forceChangePassword.session, password: form.newPassword },
    show,
    () => undefined,
  );
