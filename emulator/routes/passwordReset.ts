import { Hono } from "hono";
import { z } from "zod";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { sendLimits } from "../contract/limits";
import { loginContextSchema } from "../contract/loginContext";
import { mailCatalogue, noticeCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { problems } from "../contract/problem";
import { hashPassword } from "../crypto/passwordHash";
import { sixDigitCode } from "../crypto/randomValues";
import { redeemCode } from "../state/tickets";
import { noticeFacts, sendNotice } from "./accountEvents";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";
import { endEverythingElse } from "./revocation";

const clientId = z.string().min(1).max(128);
const loginId = z.string().min(1).max(256);
/**
 * What the mail hook is given, as a hosted identity provider takes it (Cognito's ClientMetadata): a few short
 * string values, nothing else. `service_id`, when sent, must be the client's service: the link is built for it.
 */
const hookParams = z
  .record(z.string().min(1).max(64), z.string().max(256))
  .refine((params) => Object.keys(params).length <= 10, "at most 10 extra_hook_params");

export const passwordReset = new Hono<EmulatorHono>();

passwordReset.post("/auth/v1/password/forgot", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      client_id: clientId,
      username: loginId,
      initiate: z.boolean().optional(),
      extra_hook_params: hookParams.optional(),
    }),
  );
  const client = findClient(body.client_id);
  if (client === undefined) throw problems.invalidRequest("client_id is unknown.");
  const serviceId = body.extra_hook_params?.service_id;
  if (serviceId !== undefined && serviceId !== client.serviceId)
    throw problems.invalidRequest("extra_hook_params.service_id is not the service of client_id.");
  const user = c.var.services.users.byLoginId(body.username);
  // Unknown users get the same 201 and no mail: the call must not reveal who has an account.
  if (user === undefined || !user.confirmed) return c.json({}, 201);
  // Over the limit the answer is the same 201, and the last mailed code stays the valid one.
  if (!c.var.services.sendLog.take("password_mail", user.username, sendLimits.passwordMail, c.var.now).allowed)
    return c.json({}, 201);
  const code = sixDigitCode();
  c.var.services.tickets.issue("reset_code", user.username, { code }, c.var.now + lifetimes.resetCode);
  const link = new URL(`/${client.serviceId}/${body.initiate ? "initiatePassword" : "forgotPassword"}`, c.var.site);
  link.searchParams.set("client_id", client.id);
  link.searchParams.set("code", code);
  link.searchParams.set("username", body.username);
  const message = body.initiate
    ? mailCatalogue.initiatePassword(link.toString())
    : mailCatalogue.resetPassword(link.toString());
  c.var.services.outbox.send("email", user.email, message, c.var.now, { code, link: link.toString() });
  return c.json({}, 201);
});

passwordReset.post("/auth/v1/password/confirm", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      client_id: clientId,
      username: loginId,
      new_password: z.string().min(1).max(1024),
      code: z.string().max(32),
      // docs/devices.md: the resetting browser, so that the account keeps it if it knew it already.
      context: loginContextSchema.optional(),
    }),
  );
  const client = findClient(body.client_id);
  if (client === undefined) throw problems.invalidRequest("client_id is unknown.");
  const { users, tickets } = c.var.services;
  const user = users.byLoginId(body.username);
  if (user === undefined) throw problems.invalidCode();
  const problem = passwordProblem(body.new_password, client.serviceId);
  if (problem !== undefined) throw problems.invalidRequest(problem);
  redeemCode(tickets, "reset_code", user.username, body.code, c.var.now);
  // A reset proves the mailbox: it also ends every lockout, a forced change and a pending system transfer.
  users.update(user.username, {
    passwordHash: await hashPassword(body.new_password),
    forceChangePassword: false,
    transferInProgress: false,
  });
  c.var.services.lockout.clear(user.username);
  // The resetting browser as the account knew it (noticed before the others are forgotten), else 「不明な端末」.
  const digest = body.context?.device;
  const known = digest === undefined ? undefined : c.var.services.devices.ofDigest(user.username, digest);
  // docs/devices.md, "A changed password": a reset ends every session and token of the account, and forgets every
  // device but the resetting browser when the account already knew it.
  endEverythingElse(c, user.username, { device: known?.digest });
  const facts = noticeFacts(c, client.id, { change: "password_reset" }, known);
  sendNotice(c, user.email, noticeCatalogue.passwordChanged(facts, "all"));
  return c.json({}, 201);
});
