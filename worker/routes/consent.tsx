import { Hono } from "hono";
import { z } from "zod";
import { Consent } from "../../pages/Consent";
import type { AppContext, AppEnv } from "../context";
import { readForm } from "../formBody";
import { acceptConsent } from "../identity/client";
import { modalForFailure } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { knownPathTenant } from "../pathTenant";
import { challengeValue, queryValue, scopeValue } from "../queryParams";
import { renderPage } from "../render";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";

// SPEC §2 Consent: the OAuth2 server sends the partner service's user here with a consent challenge. The
// challenge goes into a sealed cookie and out of the address bar at once, so no page or script sees it.
export const consentRoutes = new Hono<AppEnv>();

const consentQuery = z.object({
  client_id: queryValue,
  scope: scopeValue,
  consent_challenge: challengeValue,
});

const consentPage = (c: AppContext) => `/${c.get("brand").id}/consent`;

consentRoutes.get("/:tenantId/consent", knownPathTenant(), async (c) => {
  if (c.req.query("consent_challenge") !== undefined) {
    const parsed = consentQuery.safeParse(c.req.query());
    if (!parsed.success) return renderPage(c, <Consent modal="parameterError" />, 400);
    const { client_id: clientId, scope, consent_challenge: consentChallenge } = parsed.data;
    await writeSealed(c, "consent", { consentChallenge, clientId, scope });
    return c.redirect(`${consentPage(c)}?${new URLSearchParams({ client_id: clientId, scope })}`, 303);
  }
  const consent = await readSealed(c, "consent");
  if (!consent) return renderPage(c, <Consent modal="parameterError" />, 400);
  return renderPage(c, <Consent clientId={consent.clientId} />);
});

consentRoutes.post("/:tenantId/consent", knownPathTenant(), async (c) => {
  const consent = await readSealed(c, "consent");
  const form = await readForm(c, z.object({}));
  if (!consent || !form.ok) return renderPage(c, <Consent modal="parameterError" />, 400);
  const agreed = await acceptConsent(
    c,
    consent.consentChallenge,
    consent.scope.split(" ").filter(Boolean),
    deviceId(c),
  );
  if (!agreed.ok) return renderPage(c, <Consent clientId={consent.clientId} modal={modalForFailure(agreed)} />, 502);
  // The challenge is spent once the upstream answered; cleared first, as the redirect copies the headers set so far.
  clearSealed(c, "consent");
  const next = continueTo(c, agreed.data.redirect_to);
  // SPEC §8: consent without redirect_to is the generic unexpected error, not "try again".
  return next instanceof Response
    ? next
    : renderPage(c, <Consent clientId={consent.clientId} modal="unexpectedError" />, 502);
});
