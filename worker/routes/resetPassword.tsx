import { Hono } from "hono";
import { ResetPassword } from "../../pages/ResetPassword";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import type { AppEnv } from "../context";
import { forgetAuthRequest } from "../forgetAuthRequest";
import { clientIdQuery } from "../queryParams";
import { renderPage } from "../render";

// SPEC §2: both pages need client_id (the service of the reset mail); without it, the parameter-problem modal.
export const resetPasswordRoutes = new Hono<AppEnv>();

resetPasswordRoutes.get("/resetPassword", (c) => {
  forgetAuthRequest(c);
  const parsed = clientIdQuery.safeParse(c.req.query());
  if (!parsed.success) return renderPage(c, <ResetPassword modal="parameterError" />, 400);
  return renderPage(c, <ResetPassword clientId={parsed.data.client_id} />);
});

resetPasswordRoutes.get("/resetPassword/sendMail", (c) => {
  forgetAuthRequest(c);
  if (!clientIdQuery.safeParse(c.req.query()).success)
    return renderPage(c, <ResetPasswordSendMail modal="parameterError" />, 400);
  return renderPage(c, <ResetPasswordSendMail />);
});
