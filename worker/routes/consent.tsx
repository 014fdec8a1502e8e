import { Hono } from "hono";
import { z } from "zod";
import { Consent } from "../../pages/Consent";
import type { AppEnv } from "../context";
import { knownPathTenant } from "../pathTenant";
import { challengeValue, queryValue, scopeValue } from "../queryParams";
import { renderPage } from "../render";

// SPEC §2 Consent: the OAuth2 server sends the partner service's user here with its consent challenge.
export const consentRoutes = new Hono<AppEnv>();

const consentQuery = z.object({
  client_id: queryValue,
  scope: scopeValue,
  consent_challenge: challengeValue,
});

consentRoutes.get("/:tenantId/consent", knownPathTenant(), (c) => {
  const parsed = consentQuery.safeParse(c.req.query());
  if (!parsed.success) return renderPage(c, <Consent modal="parameterError" />, 400);
  const { client_id: clientId, scope, consent_challenge: consentChallenge } = parsed.data;
  return renderPage(c, <Consent clientId={clientId} scope={scope} consentChallenge={consentChallenge} />);
});
