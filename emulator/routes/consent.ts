import { Hono } from "hono";
import { z } from "zod";
import { findClient } from "../contract/clients";
import { problems } from "../contract/problem";
import { requireLive } from "../state/tickets";
import { acceptConsent } from "./authorizationFlow";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";

const challenge = z.string().min(1).max(4096);

export const consent = new Hono<EmulatorHono>();

consent.get("/auth/v1/consent", (c) => {
  const id = challenge.safeParse(c.req.query("consent_challenge"));
  if (!id.success) throw problems.invalidRequest("consent_challenge is required.");
  const pending = requireLive(c.var.services.tickets, "consent_challenge", id.data, c.var.now, "consent challenge");
  return c.json({
    challenge: id.data,
    client_id: pending.request.clientId,
    service_id: findClient(pending.request.clientId)?.serviceId,
    requested_scope: pending.request.scope.split(" ").filter(Boolean),
    subject: pending.username,
    // As Hydra's consent request: the login that led here (absent when the browser's session skipped the login)
    // and the browser session, so the login provider can tie the consent to the browser that signed in.
    ...(pending.loginChallenge ? { login_challenge: pending.loginChallenge } : {}),
    login_session_id: pending.browserSession,
    // As Hydra's consent request: what the login behind this consent achieved.
    acr: pending.login.acr,
    amr: pending.login.amr,
    skip: false,
  });
});

consent.post("/auth/v1/consent", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      consent_challenge: challenge,
      grant_scope: z.array(z.string().min(1).max(128)).max(50),
      device_id: z.string().max(64).optional(),
      remember: z.boolean().optional(),
    }),
  );
  const pending = requireLive(
    c.var.services.tickets,
    "consent_challenge",
    body.consent_challenge,
    c.var.now,
    "consent challenge",
  );
  const requested = pending.request.scope.split(" ").filter(Boolean);
  const extra = body.grant_scope.filter((scope) => !requested.includes(scope));
  if (extra.length > 0)
    throw problems.invalidRequest(`grant_scope includes scopes that were not requested: ${extra.join(" ")}`);
  return c.json({ redirect_to: acceptConsent(c, body.consent_challenge, body.grant_scope.join(" ")) });
});
