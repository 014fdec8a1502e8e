import { type Context, Hono } from "hono";
import { z } from "zod";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { mfaSetupSmsInterval, sendLimits } from "../contract/limits";
import { mailCatalogue, type NoticeMethod, noticeCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { problems } from "../contract/problem";
import { hashPassword, verifyPassword } from "../crypto/passwordHash";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { newTotpSecret, totpValidates } from "../crypto/totp";
import { redeemCode, sameCode } from "../state/tickets";
import type { User } from "../state/users";
import { grantWhereabouts, noticeFacts, noticeLock, sendNotice } from "./accountEvents";
import { redirect } from "./authorizationFlow";
import { type BearerGrant, requireAccount } from "./bearer";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";
import { endEverythingElse } from "./revocation";

type EmulatorContext = Context<EmulatorHono>;

const email = z.email().max(254);
const code = z.string().max(32);

/** Another confirmed account already owns this address. */
function takenByAnother(c: EmulatorContext, address: string, username: string): boolean {
  const owner = c.var.services.users.byEmail(address);
  return owner !== undefined && owner.username !== username && owner.confirmed;
}

/**
 * The account's verified address becomes `address`. The account has just proved the mailbox (a link or a code sent
 * there), so a sign-up that holds the address without having confirmed it gives way; it could never complete. A
 * new address is noticed to the old one and the new (docs/devices.md).
 */
function moveToAddress(
  c: EmulatorContext,
  user: User,
  address: string,
  notice: { clientId: string; how: NoticeMethod; grant?: BearerGrant },
): void {
  const { users } = c.var.services;
  const changed = address.toLowerCase() !== user.email.toLowerCase();
  if (changed) users.removeUnconfirmed(address);
  users.update(user.username, { email: address, emailVerified: true });
  if (!changed) return;
  const whereabouts = notice.grant && grantWhereabouts(c, notice.grant);
  const message = noticeCatalogue.emailChanged(noticeFacts(c, notice.clientId, notice.how, whereabouts));
  for (const to of [user.email, address]) sendNotice(c, to, message);
}

/** A change made with a bearer token: named by the token's brand and the device its login came from. */
function noticeChange(c: EmulatorContext, grant: BearerGrant): ReturnType<typeof noticeFacts> {
  return noticeFacts(c, grant.client.id, { change: "signed_in" }, grantWhereabouts(c, grant));
}

export const account = new Hono<EmulatorHono>();

account.get("/auth/v1/user/profile", async (c) => {
  const { user } = await requireAccount(c);
  return c.json({
    email: user.email,
    username: user.username,
    email_verified: user.emailVerified,
    preferred_mfa_setting: user.mfaType,
  });
});

account.patch("/auth/v1/user/password", async (c) => {
  const grant = await requireAccount(c);
  const { user, client } = grant;
  const body = await jsonBody(
    c.req.raw,
    z.object({
      password: z.string().min(1).max(1024),
      new_password: z.string().min(1).max(1024),
      // product §9's device id, as the site sends it; it proves no device, so the lockout does not read it.
      device_id: z.string().max(64).optional(),
    }),
  );
  // A bearer token must not become a way round the login's lockout: wrong current passwords count on the same
  // counters as wrong login passwords (those of the device the token's login came from, or the unknown devices'
  // one), and a locked attempt answers exactly like a wrong password without looking at it (README, Limits).
  const { lockout, users } = c.var.services;
  if (lockout.isLocked(user, grant.device, c.var.now)) throw problems.invalidPassword();
  if (!(await verifyPassword(body.password, user.passwordHash))) {
    const lock = lockout.recordFailure(user, grant.device, c.var.now);
    if (lock !== undefined) noticeLock(c, user, client.id, lock, grantWhereabouts(c, grant));
    throw problems.invalidPassword();
  }
  lockout.recordSuccess(user, grant.device);
  const problem = passwordProblem(body.new_password, client.serviceId);
  if (problem !== undefined) throw problems.invalidRequest(problem);
  users.update(user.username, { passwordHash: await hashPassword(body.new_password), forceChangePassword: false });
  // Noticed before the other devices are forgotten: the notice names the asking browser's device as the account knew it.
  const facts = noticeChange(c, grant);
  // docs/devices.md, "A changed password": the asking browser stays signed in; everything else ends.
  endEverythingElse(c, user.username, { browserSession: grant.browserSession, device: grant.device });
  sendNotice(c, user.email, noticeCatalogue.passwordChanged(facts, "others"));
  return c.json({});
});

/** Mail sent on a signed-in user's request, per account (contract/limits.ts); beyond the limit 429. */
function takeSend(c: EmulatorContext, purpose: "email_register_code" | "email_change_mail", user: User): void {
  const limit = purpose === "email_register_code" ? sendLimits.emailRegisterCode : sendLimits.emailChangeMail;
  const decision = c.var.services.sendLog.take(purpose, user.username, limit, c.var.now);
  if (!decision.allowed) {
    throw problems.tooManyRequests(
      "Too many mails were sent for this account; try again later.",
      decision.retryAfterMs,
    );
  }
}

account.patch("/auth/v1/user/email", async (c) => {
  const { user, client } = await requireAccount(c);
  const body = await jsonBody(c.req.raw, z.object({ new_email: email }));
  if (takenByAnother(c, body.new_email, user.username)) throw problems.alreadyRegistered();
  takeSend(c, "email_change_mail", user);
  const link = mailEmailChangeLink(c, {
    stage: "old",
    username: user.username,
    newEmail: body.new_email,
    clientId: client.id,
  });
  c.var.services.outbox.send("email", user.email, mailCatalogue.emailChangeToOld(body.new_email, link), c.var.now, {
    link,
  });
  return c.json({});
});

function mailEmailChangeLink(
  c: EmulatorContext,
  data: { stage: "old" | "new"; username: string; newEmail: string; clientId: string },
): string {
  const token = c.var.services.tickets.issue(
    "email_change",
    randomToken(),
    data,
    c.var.now + lifetimes.emailChangeLink,
  );
  const link = new URL("/auth/v1/user/email/confirm", c.var.site);
  link.searchParams.set("token", token);
  link.searchParams.set("client_id", data.clientId);
  return link.toString();
}

/** The mailed links land here through the site's proxy; each answers with the site's result page. */
account.get("/auth/v1/user/email/confirm", (c) => {
  const { tickets, users, outbox } = c.var.services;
  const token = z.string().min(1).max(256).safeParse(c.req.query("token"));
  const found = token.success ? tickets.find("email_change", token.data, c.var.now) : { status: "missing" as const };
  const clientId = found.status === "missing" ? c.req.query("client_id") : found.data.clientId;
  const result = (outcome: "sent_to_new_email" | "completed" | "invalid" | "error"): Response => {
    const client = findClient(clientId);
    const url = new URL(client ? `/${client.serviceId}/changeEmail` : "/changeEmail", c.var.site);
    if (client) url.searchParams.set("client_id", client.id);
    url.searchParams.set("result", outcome);
    return redirect(c, url.toString());
  };
  if (found.status !== "valid" || !token.success) return result("invalid");
  tickets.consume("email_change", token.data, c.var.now);
  const change = found.data;
  const user = users.byUsername(change.username);
  if (user === undefined || takenByAnother(c, change.newEmail, user.username)) return result("error");
  if (change.stage === "old") {
    const link = mailEmailChangeLink(c, { ...change, stage: "new" });
    outbox.send("email", change.newEmail, mailCatalogue.emailChangeToNew(link), c.var.now, { link });
    return result("sent_to_new_email");
  }
  moveToAddress(c, user, change.newEmail, { clientId: change.clientId, how: { change: "email_link" } });
  return result("completed");
});

account.post("/auth/v1/user/email", async (c) => {
  const { user } = await requireAccount(c);
  const body = await jsonBody(c.req.raw, z.object({ email }));
  // Registering the address the account already has is allowed (product §2 RegisterEmail).
  if (takenByAnother(c, body.email, user.username)) throw problems.alreadyRegistered();
  // The last code sent stays valid when a further one is refused.
  takeSend(c, "email_register_code", user);
  const emailCode = sixDigitCode();
  c.var.services.tickets.issue(
    "email_register_code",
    user.username,
    { code: emailCode, email: body.email },
    c.var.now + lifetimes.emailRegisterCode,
  );
  c.var.services.outbox.send("email", body.email, mailCatalogue.emailRegisterCode(emailCode), c.var.now, {
    code: emailCode,
  });
  return c.json({}, 201);
});

account.post("/auth/v1/user/email/confirm", async (c) => {
  const grant = await requireAccount(c);
  const { user } = grant;
  const body = await jsonBody(c.req.raw, z.object({ code }));
  const registered = redeemCode(c.var.services.tickets, "email_register_code", user.username, body.code, c.var.now);
  if (takenByAnother(c, registered.email, user.username)) throw problems.alreadyRegistered();
  moveToAddress(c, user, registered.email, { clientId: grant.client.id, how: { change: "signed_in" }, grant });
  return c.json({}, 201);
});

const mfaSetupSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("totp") }),
  z.object({
    type: z.literal("sms"),
    phone_number: z.string().regex(/^\+81\d{9,11}$/, "phone_number must be +81 followed by the number"),
  }),
]);

/**
 * product §4: one setup request at a time per user (the one pending ticket). A TOTP request while a TOTP setup is
 * pending answers its secret again, never a second one (a double click, a reload, two isolates of the site); an
 * SMS request while the last setup SMS is less than `mfaSetupSmsInterval` old is refused, never a second SMS.
 */
account.post("/auth/v1/user/mfa/setup", async (c) => {
  const { user } = await requireAccount(c);
  const body = await jsonBody(c.req.raw, mfaSetupSchema);
  const { tickets, outbox, sendLog } = c.var.services;
  const pending = tickets.find("mfa_setup", user.username, c.var.now);
  if (body.type === "totp") {
    if (pending.status === "valid" && pending.data.type === "totp")
      return c.json({ secret_code: pending.data.secret }, 201);
    const secret = newTotpSecret();
    tickets.issue("mfa_setup", user.username, { type: "totp", secret }, c.var.now + lifetimes.totpSetup);
    return c.json({ secret_code: secret }, 201);
  }
  if (pending.status === "valid" && pending.data.type === "sms") {
    const freeAt = pending.data.sentAt + mfaSetupSmsInterval;
    if (freeAt > c.var.now) throw problems.setupPending(freeAt - c.var.now);
  }
  const send = sendLog.take("mfa_setup_sms", user.username, sendLimits.mfaSetupSms, c.var.now);
  if (!send.allowed)
    throw problems.tooManyRequests("Too many SMS codes for this account; retry later.", send.retryAfterMs);
  const smsCode = sixDigitCode();
  tickets.issue(
    "mfa_setup",
    user.username,
    { type: "sms", phone: body.phone_number, code: smsCode, sentAt: c.var.now },
    c.var.now + lifetimes.smsCode,
  );
  outbox.send("sms", body.phone_number, mailCatalogue.smsCode(smsCode), c.var.now, { code: smsCode });
  return c.json({}, 201);
});

/**
 * A wrong code counts against the pending setup; after `maxWrongCodes` of them it is dead and every further
 * confirmation, right or wrong, answers `expired_code` until a new setup is requested.
 */
account.post("/auth/v1/user/mfa/confirm", async (c) => {
  const grant = await requireAccount(c);
  const { user } = grant;
  const body = await jsonBody(c.req.raw, z.object({ type: z.enum(["totp", "sms"]), code }));
  const { tickets, users } = c.var.services;
  const found = tickets.find("mfa_setup", user.username, c.var.now);
  if (found.status === "missing" || found.data.type !== body.type) throw problems.challengeNotFound("MFA setup");
  if (found.status === "expired") throw problems.expiredCode();
  const setup = found.data;
  const matches =
    setup.type === "totp" ? totpValidates(setup.secret, body.code, c.var.now) : sameCode(setup.code, body.code);
  if (!matches) {
    tickets.recordWrongCode("mfa_setup", user.username);
    throw problems.invalidCode();
  }
  tickets.consume("mfa_setup", user.username, c.var.now);
  users.update(
    user.username,
    setup.type === "totp"
      ? { mfaType: "totp", totpSecret: setup.secret, phone: null }
      : { mfaType: "sms", phone: setup.phone, totpSecret: null },
  );
  sendNotice(c, user.email, noticeCatalogue.secondFactorChanged(noticeChange(c, grant), setup.type));
  return c.json({}, 201);
});
