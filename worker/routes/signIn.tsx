import { Hono } from "hono";
import { SignIn } from "../../pages/SignIn";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";
import { clientIdFor } from "../tenantClient";

export const signInRoutes = new Hono<AppEnv>();

signInRoutes.get("/signIn", async (c) => {
  const [session, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  const clientId = clientIdFor(c, authRequest);
  if (!session) return renderPage(c, <SignIn clientId={clientId} modal="parameterError" />, 400);
  return renderPage(c, <SignIn clientId={clientId} username={authRequest?.autoFillUserName ?? session.username} />);
});
