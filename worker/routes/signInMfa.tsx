import { Hono } from "hono";
import { SignInMfa } from "../../pages/SignInMfa";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";
import { authStartHref } from "./entry";

// SPEC §4: the login answered mfa_sms or mfa_totp, and the sign-in cookie holds that session and type.
export const signInMfaRoutes = new Hono<AppEnv>();

signInMfaRoutes.get("/signIn/mfa", async (c) => {
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  const restartHref = authRequest ? authStartHref(authRequest) : undefined;
  if (!signIn?.mfa) return renderPage(c, <SignInMfa type="TOTP" restartHref={restartHref} modal="parameterError" />, 400);
  return renderPage(c, <SignInMfa type={signIn.mfa.type} restartHref={restartHref} />);
});
