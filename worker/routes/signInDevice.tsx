import { z } from "zod/mini";
import { SignInDevice } from "../../pages/SignInDevice";
import { RESTART_PATH } from "../flow/authorization";
import { DEVICE_CONFIRMATION_PATH, logDeviceConfirmation, loginStep } from "../flow/continueLogin";
import { emptyForm, ruleField } from "../formFields";
import { deviceCodeResend } from "../identity/client";
import { failure, isRefusal, modalForFailure } from "../identity/outcomes";
import { formStep, type ScreenLoader } from "../routeKinds";
import { readSealed, writeSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";

// docs/devices.md: the login asked to confirm a new device (after the password and every other step), and the sign-in
// cookie holds that session and the masked address the code went to. The code re-posts the login with flow
// device_confirmation; a completed login goes on like any other (continueLogin).

type DeviceState = SignInSession & { username: string; device: NonNullable<SignInSession["device"]> };

const signInDeviceScreen: ScreenLoader<DeviceState> = async (c) => {
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  if (!signIn?.device || signIn.username === undefined) return undefined;
  const restartHref = authRequest ? RESTART_PATH : undefined;
  return {
    state: { ...signIn, username: signIn.username, device: signIn.device },
    page: <SignInDevice destination={signIn.device.destination} restartHref={restartHref} />,
  };
};

export const signInDevice = formStep({
  screen: signInDeviceScreen,
  form: () => z.object({ code: ruleField("code") }),
  subject: ({ state }) => state.device.session,
  submit: (c, { state, form, show }) => {
    const { session } = state.device;
    const body = { flow: "device_confirmation", username: state.username, session, code: form.code } as const;
    return loginStep(c, state, body, show, (outcome) => {
      if (!isRefusal(outcome)) {
        // A session the upstream ended (five wrong codes, or its time): loginStep drops it and asks to start again.
        if (modalForFailure(outcome) === "retry") logDeviceConfirmation(c, "expired");
        return undefined;
      }
      // The session survives a wrong code; an expired code is replaced by a resent one.
      const expired = !outcome.ok && outcome.problem.type === "expired_code";
      logDeviceConfirmation(c, expired ? "expired" : "wrong_code");
      return show({ form: { values: {}, errors: { code: expired ? "code.expired" : "code.wrong" } }, status: 401 });
    });
  },
});

/** 「コードを再送する」: a new code to the same address, the old one void; counted in the mail class per session. */
export const resendDeviceCode = formStep({
  screen: signInDeviceScreen,
  form: emptyForm,
  subject: ({ state }) => state.device.session,
  submit: async (c, { state, show }) => {
    const outcome = await deviceCodeResend(c, state.loginChallenge, state.device.session);
    if (outcome.ok) {
      logDeviceConfirmation(c, "resent");
      return c.redirect(DEVICE_CONFIRMATION_PATH, 303);
    }
    const shown = failure(outcome);
    logDeviceConfirmation(c, shown.modal === "retry" ? "expired" : "resend_refused");
    // As for a code: a session the upstream no longer knows is dropped, so the next POST is the parameter problem.
    if (shown.modal === "retry")
      await writeSealed(c, "signIn", { loginChallenge: state.loginChallenge, username: state.username });
    return show(shown);
  },
});
