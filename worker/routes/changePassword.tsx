import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ChangePassword } from "../../pages/ChangePassword";
import {
  ChangePasswordInForceChangePassword,
  type ChangePasswordInForceChangePasswordProps,
} from "../../pages/ChangePasswordInForceChangePassword";
import type { AppEnv } from "../context";
import { readForm, ruleField } from "../formBody";
import { login } from "../identity/client";
import { failureStatus, modalStatus } from "../identity/outcomes";
import { renderPage } from "../render";
import { deviceId, readSealed } from "../session/cookies";
import { continueLogin, failedStepModal } from "./signIn";

export const changePasswordRoutes = new Hono<AppEnv>();

// Without a token the page still renders: its action silently does nothing (SPEC §6).
changePasswordRoutes.get("/changePassword", (c) => renderPage(c, <ChangePassword />));

// SPEC §4: the login answered new_password and the sign-in cookie holds that session.
changePasswordRoutes.get("/changePasswordInForceChangePassword", async (c) => {
  const signIn = await readSealed(c, "signIn");
  if (!signIn?.forceChangePassword)
    return renderPage(c, <ChangePasswordInForceChangePassword modal="parameterError" />, 400);
  return renderPage(c, <ChangePasswordInForceChangePassword />);
});

// SPEC §4: the new password re-posts the login with flow new_password; an MFA user goes on to the second factor.
changePasswordRoutes.post("/changePasswordInForceChangePassword", async (c) => {
  const form = await readForm(c, z.object({ newPassword: ruleField("password", { serviceId: c.get("brand").id }) }));
  const signIn = await readSealed(c, "signIn");
  const page = (props: ChangePasswordInForceChangePasswordProps, status: ContentfulStatusCode) =>
    renderPage(c, <ChangePasswordInForceChangePassword {...props} />, status);
  if (!signIn?.forceChangePassword) return page({ modal: "parameterError" }, 400);
  if (!form.ok) return page({ errors: form.errors }, 422);

  const outcome = await login(c, signIn.loginChallenge, deviceId(c), {
    flow: "new_password",
    session: signIn.forceChangePassword.session,
    password: form.data.newPassword,
  });
  if (outcome.ok) {
    const next = await continueLogin(c, signIn, outcome.data);
    return next instanceof Response ? next : page({ modal: next }, modalStatus(next));
  }
  return page({ modal: await failedStepModal(c, signIn, outcome) }, failureStatus(outcome));
});
