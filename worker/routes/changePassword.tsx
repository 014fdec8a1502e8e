import { Hono } from "hono";
import { ChangePassword } from "../../pages/ChangePassword";
import { ChangePasswordInForceChangePassword } from "../../pages/ChangePasswordInForceChangePassword";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";

export const changePasswordRoutes = new Hono<AppEnv>();

// Without a token the page still renders: its action silently does nothing (SPEC §6).
changePasswordRoutes.get("/changePassword", (c) => renderPage(c, <ChangePassword />));

// SPEC §4: the login answered new_password and the sign-in cookie holds that session.
changePasswordRoutes.get("/changePasswordInForceChangePassword", async (c) => {
  const signIn = await readSealed(c, "signIn");
  if (!signIn?.forceChangePassword) return renderPage(c, <ChangePasswordInForceChangePassword modal="parameterError" />, 400);
  return renderPage(c, <ChangePasswordInForceChangePassword />);
});
