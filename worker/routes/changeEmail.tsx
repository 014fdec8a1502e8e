import { Hono } from "hono";
import { z } from "zod";
import { ChangeEmail } from "../../pages/ChangeEmail";
import { ChangeEmailResult, changeEmailResults } from "../../pages/ChangeEmailResult";
import { ParameterError } from "../../pages/ParameterError";
import type { AppEnv } from "../context";
import { forgetAuthRequest } from "../forgetAuthRequest";
import { knownPathTenant } from "../pathTenant";
import { queryValue } from "../queryParams";
import { renderPage } from "../render";

export const changeEmailRoutes = new Hono<AppEnv>();

// Without a token the page still renders: its action silently does nothing (SPEC §6).
changeEmailRoutes.get("/changeEmail", (c) => renderPage(c, <ChangeEmail />));

const changeEmailResultQuery = z.object({
  client_id: queryValue,
  result: z.enum(changeEmailResults),
});

// SPEC §2 ChangeEmailResult: where the confirmation mails' links land; without a known result there is nothing to show.
changeEmailRoutes.get("/:tenantId/changeEmail", knownPathTenant(), (c) => {
  forgetAuthRequest(c);
  const parsed = changeEmailResultQuery.safeParse(c.req.query());
  if (!parsed.success) return renderPage(c, <ParameterError />, 400);
  return renderPage(c, <ChangeEmailResult result={parsed.data.result} />);
});
