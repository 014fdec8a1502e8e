import { Hono } from "hono";
import { SignIn } from "../../pages/SignIn";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";
import { clientIdFor } from "../tenantClient";

export const signInRoutes = new Hono<AppEnv>();

signInRoutes.get("/signIn", async (c) => {
  // Reached from the login URL (sign-in cookie) or from sign-up's "already have an account" link (sign-up cookie).
  const [signIn, signUp, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "signUp"), readSealed(c, "authRequest")]);
  const clientId = clientIdFor(c, authRequest);
  if (!signIn && !signUp) return renderPage(c, <SignIn clientId={clientId} modal="parameterError" />, 400);
  return renderPage(c, <SignIn clientId={clientId} username={authRequest?.autoFillUserName ?? signIn?.username} />);
});
