import { Hono } from "hono";
import { SignUpCheckEmail } from "../../pages/SignUpCheckEmail";
import { SignUpConfirmMail } from "../../pages/SignUpConfirmMail";
import { SignUpInputPassword } from "../../pages/SignUpInputPassword";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";
import { authStartHref } from "./entry";

// SPEC §2/§4 sign-up: check e-mail → password → e-mail code. Each step needs what the one before left in the
// sign-up cookie; without it the step shows the parameter-problem modal (SPEC §8).
export const signUpRoutes = new Hono<AppEnv>();

signUpRoutes.get("/signUp/checkEmail", async (c) => {
  // Reached from the login URL (sign-up cookie) or from the sign-in screen's link (sign-in cookie).
  const [signUp, signIn] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "signIn")]);
  if (!signUp && !signIn) return renderPage(c, <SignUpCheckEmail modal="parameterError" />, 400);
  return renderPage(c, <SignUpCheckEmail />);
});

signUpRoutes.get("/signUp/inputPassword", async (c) => {
  const signUp = await readSealed(c, "signUp");
  if (!signUp?.email) return renderPage(c, <SignUpInputPassword email="" modal="parameterError" />, 400);
  return renderPage(c, <SignUpInputPassword email={signUp.email} />);
});

signUpRoutes.get("/signUp/confirmMail", async (c) => {
  const [signUp, authRequest] = await Promise.all([readSealed(c, "signUp"), readSealed(c, "authRequest")]);
  const restartHref = authRequest ? authStartHref(authRequest) : undefined;
  if (!signUp?.username) return renderPage(c, <SignUpConfirmMail restartHref={restartHref} modal="parameterError" />, 400);
  return renderPage(c, <SignUpConfirmMail email={signUp.email} restartHref={restartHref} />);
});
