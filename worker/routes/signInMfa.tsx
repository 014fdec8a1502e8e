import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { screens } from "../../pages/messages";
import { SignInMfa, type SignInMfaProps } from "../../pages/SignInMfa";
import type { AppEnv } from "../context";
import { readForm, ruleField } from "../formBody";
import { login } from "../identity/client";
import { failureStatus, isRefusal, modalStatus } from "../identity/outcomes";
import { renderPage } from "../render";
import { deviceId, readSealed } from "../session/cookies";
import { authStartHref } from "./entry";
import { continueLogin, failedStepModal } from "./signIn";

// SPEC §4: the login answered mfa_sms or mfa_totp, and the sign-in cookie holds that session and type.
export const signInMfaRoutes = new Hono<AppEnv>();

signInMfaRoutes.get("/signIn/mfa", async (c) => {
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  const restartHref = authRequest ? authStartHref(authRequest) : undefined;
  if (!signIn?.mfa)
    return renderPage(c, <SignInMfa type="TOTP" restartHref={restartHref} modal="parameterError" />, 400);
  return renderPage(c, <SignInMfa type={signIn.mfa.type} restartHref={restartHref} />);
});

signInMfaRoutes.post("/signIn/mfa", async (c) => {
  const form = await readForm(c, z.object({ mfaCode: ruleField("code") }));
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  const restartHref = authRequest ? authStartHref(authRequest) : undefined;
  const page = (props: Omit<SignInMfaProps, "restartHref">, status: ContentfulStatusCode) =>
    renderPage(c, <SignInMfa restartHref={restartHref} {...props} />, status);
  if (!signIn?.mfa) return page({ type: "TOTP", modal: "parameterError" }, 400);
  const { type, session } = signIn.mfa;
  if (!form.ok) return page({ type, errors: form.errors }, 422);

  const outcome = await login(c, signIn.loginChallenge, deviceId(c), {
    flow: type === "SMS" ? "mfa_sms" : "mfa_totp",
    session,
    code: form.data.mfaCode,
  });
  if (outcome.ok) {
    const next = await continueLogin(c, signIn, outcome.data);
    return next instanceof Response ? next : page({ type, modal: next }, modalStatus(next));
  }
  if (isRefusal(outcome)) {
    // The session survives a wrong code (the user may try again); an expired code needs a new login.
    const text = screens.signInMfa;
    return page(
      { type, errors: { mfaCode: outcome.problem.type === "expired_code" ? text.codeExpired : text.codeWrong } },
      401,
    );
  }
  return page({ type, modal: await failedStepModal(c, signIn, outcome) }, failureStatus(outcome));
});
