import { Hono } from "hono";
import { z } from "zod";
import { NewPassword, type NewPasswordVariant } from "../../pages/NewPassword";
import type { AppContext, AppEnv } from "../context";
import { forgetAuthRequest } from "../forgetAuthRequest";
import { knownPathTenant } from "../pathTenant";
import { queryValue } from "../queryParams";
import { renderPage } from "../render";

// SPEC §2 new-password pages: reached from the reset or initiation mail, whose link carries client_id, code, username.
export const newPasswordRoutes = new Hono<AppEnv>();

const newPasswordQuery = z.object({
  client_id: queryValue,
  code: queryValue,
  username: queryValue,
});

function showNewPassword(c: AppContext, variant: NewPasswordVariant) {
  forgetAuthRequest(c);
  const parsed = newPasswordQuery.safeParse(c.req.query());
  if (!parsed.success) return renderPage(c, <NewPassword variant={variant} modal="parameterError" />, 400);
  const { client_id: clientId, code, username } = parsed.data;
  return renderPage(c, <NewPassword variant={variant} clientId={clientId} code={code} username={username} />);
}

newPasswordRoutes.get("/:tenantId/forgotPassword", knownPathTenant(), (c) => showNewPassword(c, "forgotPassword"));
newPasswordRoutes.get("/:tenantId/initiatePassword", knownPathTenant(), (c) => showNewPassword(c, "initiatePassword"));
