import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { type ModalKey, screens } from "../../pages/messages";
import { SignUpCheckEmail, type SignUpCheckEmailProps } from "../../pages/SignUpCheckEmail";
import { SignUpConfirmMail, type SignUpConfirmMailProps } from "../../pages/SignUpConfirmMail";
import { SignUpInputPassword, type SignUpInputPasswordProps } from "../../pages/SignUpInputPassword";
import type { AppContext, AppEnv } from "../context";
import { readForm, ruleField } from "../formBody";
import { type Outcome, register, registerCheckEmail, registerConfirm, registerResend } from "../identity/client";
import { failureStatus, isRefusal, modalForFailure, modalStatus } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { renderPage } from "../render";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import { authStartHref } from "./entry";

// SPEC §2/§4 sign-up: check e-mail → password → e-mail code. Each step needs what the one before left in the
// sign-up cookie; without it the step shows the parameter-problem modal (SPEC §8).
export const signUpRoutes = new Hono<AppEnv>();

/** Buttons that post nothing but still must be forms (JSON and other bodies are refused with 415). */
const emptyForm = z.object({});

// The catalogue has no sign-up wording for a refused code yet; the second-factor screen's says the same.
const codeRefusal = { wrong: screens.signUpConfirmMail.codeWrong, expired: screens.signUpConfirmMail.codeExpired };

/**
 * The SPEC §8 modal of a refused or failed upstream call. A challenge the upstream no longer knows ends the
 * sign-up state, so a repeated POST shows the parameter problem rather than the same upstream refusal.
 */
function failureModal(c: AppContext, outcome: Outcome<unknown>): ModalKey {
  const modal = modalForFailure(outcome);
  if (modal === "retry") clearSealed(c, "signUp");
  return modal;
}

type Page<P> = (props?: P, status?: ContentfulStatusCode) => Promise<Response>;

/** The e-mail step accepts the sign-up state or, from the sign-in screen's link, the sign-in state's challenge. */
async function checkEmailScreen(c: AppContext) {
  const [signUp, signIn] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "signIn")]);
  const page: Page<SignUpCheckEmailProps> = (props = {}, status) =>
    renderPage(c, <SignUpCheckEmail {...props} />, status);
  return { loginChallenge: signUp?.loginChallenge ?? signIn?.loginChallenge, page };
}

/** The password step shows the e-mail of the sign-up state, read-only. */
async function inputPasswordScreen(c: AppContext) {
  const signUp = await readSealed(c, "signUp");
  const page: Page<Omit<SignUpInputPasswordProps, "email">> = (props = {}, status) =>
    renderPage(c, <SignUpInputPassword email={signUp?.email ?? ""} {...props} />, status);
  return { signUp, page };
}

/** The code step; 'fix the e-mail' restarts the app's authorization when the auth request is still stored. */
async function confirmMailScreen(c: AppContext) {
  const [signUp, authRequest] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "authRequest")]);
  const restartHref = authRequest ? authStartHref(authRequest) : undefined;
  const page: Page<Pick<SignUpConfirmMailProps, "errors" | "modal">> = (props = {}, status) =>
    renderPage(c, <SignUpConfirmMail email={signUp?.email} restartHref={restartHref} {...props} />, status);
  return { signUp, page };
}

signUpRoutes.get("/signUp/checkEmail", async (c) => {
  const { loginChallenge, page } = await checkEmailScreen(c);
  return loginChallenge ? page() : page({ modal: "parameterError" }, 400);
});

signUpRoutes.post("/signUp/checkEmail", async (c) => {
  const form = await readForm(c, z.object({ email: ruleField("email") }));
  const { loginChallenge, page } = await checkEmailScreen(c);
  if (!loginChallenge) return page({ modal: "parameterError" }, 400);
  if (!form.ok) return page({ email: form.values.email, errors: form.errors }, 422);

  const { email } = form.data;
  const outcome = await registerCheckEmail(c, loginChallenge, email);
  if (!outcome.ok) return page({ email, modal: failureModal(c, outcome) }, failureStatus(outcome));
  if (outcome.data.registered) return page({ email, modal: "alreadyRegistered" }, 409);
  // A fresh e-mail starts the sign-up over: any username of an earlier attempt is dropped.
  await writeSealed(c, "signUp", { loginChallenge, email });
  return c.redirect("/signUp/inputPassword", 303);
});

signUpRoutes.get("/signUp/inputPassword", async (c) => {
  const { signUp, page } = await inputPasswordScreen(c);
  return signUp?.email ? page() : page({ modal: "parameterError" }, 400);
});

signUpRoutes.post("/signUp/inputPassword", async (c) => {
  const form = await readForm(c, z.object({ password: ruleField("password", { serviceId: c.get("brand").id }) }));
  const { signUp, page } = await inputPasswordScreen(c);
  if (!signUp?.email) return page({ modal: "parameterError" }, 400);
  // The password is never handed back to the page; the e-mail comes from the state, never from the form.
  if (!form.ok) return page({ errors: form.errors }, 422);

  const { loginChallenge, email } = signUp;
  const outcome = await register(c, loginChallenge, email, form.data.password);
  if (outcome.ok) {
    await writeSealed(c, "signUp", { loginChallenge, email, username: outcome.data.username });
    return c.redirect("/signUp/confirmMail", 303);
  }
  if (outcome.problem.type === "already_registered") return page({ modal: "alreadyRegistered" }, 409);
  return page({ modal: failureModal(c, outcome) }, failureStatus(outcome));
});

signUpRoutes.post("/signUp/inputPassword/back", async (c) => {
  await readForm(c, emptyForm);
  const { signUp, page } = await inputPasswordScreen(c);
  if (!signUp) return page({ modal: "parameterError" }, 400);
  // SPEC §2: going back deletes what was entered; the challenge stays for the next e-mail.
  await writeSealed(c, "signUp", { loginChallenge: signUp.loginChallenge });
  return c.redirect("/signUp/checkEmail", 303);
});

signUpRoutes.get("/signUp/confirmMail", async (c) => {
  const { signUp, page } = await confirmMailScreen(c);
  return signUp?.username ? page() : page({ modal: "parameterError" }, 400);
});

signUpRoutes.post("/signUp/confirmMail", async (c) => {
  const form = await readForm(c, z.object({ code: ruleField("code") }));
  const { signUp, page } = await confirmMailScreen(c);
  if (!signUp?.username) return page({ modal: "parameterError" }, 400);
  if (!form.ok) return page({ errors: form.errors }, 422);

  const outcome = await registerConfirm(c, signUp.loginChallenge, signUp.username, form.data.code);
  if (outcome.ok) {
    // The challenge is spent once the upstream accepts the code; cleared before continueTo builds its response.
    clearSealed(c, "signUp");
    const next = continueTo(c, outcome.data.redirect_to);
    return next instanceof Response ? next : page({ modal: next }, modalStatus(next));
  }
  if (isRefusal(outcome)) {
    const error = outcome.problem.type === "expired_code" ? codeRefusal.expired : codeRefusal.wrong;
    return page({ errors: { code: error } }, 401);
  }
  return page({ modal: failureModal(c, outcome) }, failureStatus(outcome));
});

signUpRoutes.post("/signUp/confirmMail/resend", async (c) => {
  await readForm(c, emptyForm);
  const { signUp, page } = await confirmMailScreen(c);
  if (!signUp?.username) return page({ modal: "parameterError" }, 400);
  const outcome = await registerResend(c, signUp.loginChallenge, signUp.username);
  if (!outcome.ok) return page({ modal: failureModal(c, outcome) }, failureStatus(outcome));
  // The code screen already says a code went to the address; the new code replaces the old one upstream.
  return c.redirect("/signUp/confirmMail", 303);
});
