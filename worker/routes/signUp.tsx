import { z } from "zod/mini";
import { SignUpCheckEmail } from "../../pages/SignUpCheckEmail";
import { SignUpConfirmMail } from "../../pages/SignUpConfirmMail";
import { SignUpInputPassword } from "../../pages/SignUpInputPassword";
import type { AppContext } from "../context";
import { RESTART_PATH } from "../flow/authorization";
import { loginContext } from "../flow/loginContext";
import { ENROLMENT_SECONDS, passkeyPolicy, webAuthnRefused } from "../flow/passkeys";
import { emptyForm, ruleField } from "../formFields";
import {
  type CallResult,
  type PasskeyEnrolment,
  register,
  registerCheckEmail,
  registerConfirm,
  registerResend,
} from "../identity/client";
import { failure, isInvalidInput, isRefusal } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { normalisedSubject } from "../rateLimit";
import type { Show } from "../render";
import { formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import type { SignUpSession } from "../session/state";

// product §2/§4 sign-up: check e-mail → password → e-mail code. Each step needs what the one before left in the
// sign-up cookie; without it the step shows the parameter-problem modal (product §8).

/**
 * The product §8 modal of a refused or failed upstream call. A challenge the upstream no longer knows ends the
 * sign-up state, so a repeated POST shows the parameter problem rather than the same upstream refusal.
 */
function showFailure(c: AppContext, outcome: CallResult<unknown>, show: Show): Promise<Response> {
  const shown = failure(outcome);
  if (shown.modal === "retry") clearSealed(c, "signUp");
  return show(shown);
}

/** The e-mail step accepts the sign-up state or, from the sign-in screen's link, the sign-in state's challenge. */
export const checkEmail = formStep({
  screen: async (c) => {
    const [signUp, signIn] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "signIn")]);
    const loginChallenge = signUp?.loginChallenge ?? signIn?.loginChallenge;
    return loginChallenge ? { state: { loginChallenge }, page: <SignUpCheckEmail /> } : undefined;
  },
  form: () => z.object({ email: ruleField("email") }),
  subject: ({ form }) => normalisedSubject(form.email),
  submit: async (c, { state: { loginChallenge }, form: { email }, show }) => {
    const outcome = await registerCheckEmail(c, loginChallenge, email);
    // An address the site's rule lets through but the identity API refuses is the user's to correct.
    if (isInvalidInput(outcome)) return show({ form: { values: {}, errors: { email: "email.invalid" } } });
    if (!outcome.ok) return showFailure(c, outcome, show);
    if (outcome.data.registered) return show({ modal: "alreadyRegistered" });
    // A fresh e-mail starts the sign-up over: any username of an earlier attempt is dropped.
    await writeSealed(c, "signUp", { loginChallenge, email });
    return c.redirect("/signUp/inputPassword", 303);
  },
});

type WithEmail = SignUpSession & { email: string };

/** The password step shows the e-mail of the sign-up state, read-only; the form's e-mail is never used. */
const inputPasswordScreen: ScreenLoader<WithEmail> = async (c) => {
  const signUp = await readSealed(c, "signUp");
  if (!signUp?.email) return undefined;
  return { state: { ...signUp, email: signUp.email }, page: <SignUpInputPassword email={signUp.email} /> };
};

export const inputPassword = formStep({
  screen: inputPasswordScreen,
  form: (rules) => z.object({ password: ruleField("password", rules) }),
  subject: ({ state }) => normalisedSubject(state.email),
  chosenPassword: ({ state, form }) => ({ field: "password", password: form.password, identities: [state.email] }),
  submit: async (c, { state: { loginChallenge, email }, form, show }) => {
    const outcome = await register(c, loginChallenge, email, form.password);
    if (outcome.ok) {
      await writeSealed(c, "signUp", { loginChallenge, email, username: outcome.data.username });
      return c.redirect("/signUp/confirmMail", 303);
    }
    if (outcome.problem.type === "already_registered") return show({ modal: "alreadyRegistered" });
    return showFailure(c, outcome, show);
  },
});

/** 'Back to the e-mail' works from any sign-up state. */
export const backToEmail = formStep({
  screen: async (c) => {
    const signUp = await readSealed(c, "signUp");
    return signUp ? { state: signUp, page: <SignUpInputPassword email={signUp.email} /> } : undefined;
  },
  form: emptyForm,
  submit: async (c, { state }) => {
    // product §2: going back deletes what was entered; the challenge stays for the next e-mail.
    await writeSealed(c, "signUp", { loginChallenge: state.loginChallenge });
    return c.redirect("/signUp/checkEmail", 303);
  },
});

type WithUsername = SignUpSession & { username: string };

/** The code step; 'fix the e-mail' restarts the app's authorization when the auth request is still stored. */
const confirmMailScreen: ScreenLoader<WithUsername> = async (c) => {
  const [signUp, authRequest] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "authRequest")]);
  if (!signUp?.username) return undefined;
  const restartHref = authRequest ? RESTART_PATH : undefined;
  return {
    state: { ...signUp, username: signUp.username },
    page: <SignUpConfirmMail email={signUp.email} restartHref={restartHref} />,
  };
};

/**
 * docs/passkeys.md "Passkey first": the ticket a confirmed sign-up got, kept for the second-factor step that follows
 * (for this user only, no longer than the upstream keeps it), where passkeys may be offered at all.
 */
async function keepPasskeyTicket(c: AppContext, username: string, enrolment: PasskeyEnrolment | undefined) {
  if (!enrolment || passkeyPolicy(c.env, c.get("brand")) === "off" || webAuthnRefused(c)) return;
  const lifetime = Math.min(enrolment.expires_in ?? ENROLMENT_SECONDS, ENROLMENT_SECONDS);
  const hashedUserName = await sha256Hex(username);
  await writeSealed(c, "signUpPasskey", { ticket: enrolment.ticket, hashedUserName }, lifetime);
}

export const confirmMail = formStep({
  screen: confirmMailScreen,
  form: () => z.object({ code: ruleField("code") }),
  subject: ({ state }) => state.username,
  submit: async (c, { state, form, show }) => {
    const context = await loginContext(c);
    const outcome = await registerConfirm(c, state.loginChallenge, state.username, form.code, context);
    if (outcome.ok) {
      // The challenge is spent once the upstream accepts the code; cleared before continueTo builds its response.
      clearSealed(c, "signUp");
      await keepPasskeyTicket(c, state.username, outcome.data.passkey_enrolment);
      return continueTo(c, outcome.data.redirect_to, show);
    }
    if (isRefusal(outcome)) {
      const error = outcome.problem.type === "expired_code" ? "code.expired" : "code.wrong";
      return show({ form: { values: {}, errors: { code: error } }, status: 401 });
    }
    return showFailure(c, outcome, show);
  },
});

export const resendCode = formStep({
  screen: confirmMailScreen,
  form: emptyForm,
  subject: ({ state }) => state.username,
  submit: async (c, { state, show }) => {
    const outcome = await registerResend(c, state.loginChallenge, state.username);
    if (!outcome.ok) return showFailure(c, outcome, show);
    // The code screen already says a code went to the address; the new code replaces the old one upstream.
    return c.redirect("/signUp/confirmMail", 303);
  },
});
