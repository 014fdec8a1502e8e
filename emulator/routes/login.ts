import { type Context, Hono } from "hono";
import { z } from "zod";
import { type Acr, type LoginMethod, loginMethods } from "../contract/authentication";
import { resumeUrl } from "../contract/authorizationRequest";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { mailCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { Problem, problems } from "../contract/problem";
import { hashPassword, verifyPassword } from "../crypto/passwordHash";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { totpValidates } from "../crypto/totp";
import { deviceOf } from "../state/passwordLockout";
import { requireLive, sameCode, type TicketKinds } from "../state/tickets";
import type { User } from "../state/users";
import { acceptLogin, endBrowserSession } from "./authorizationFlow";
import { bearerGrant } from "./bearer";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

const challenge = z.string().min(1).max(4096);
const common = {
  login_challenge: challenge,
  remember: z.boolean().optional(),
  device_id: z.string().max(64).optional(),
};
const session = z.string().min(1).max(256);
const code = z.string().max(32);
// SPEC §7: every flow's body names the user (the e-mail or the login ID, as typed at the password step).
const username = z.string().min(1).max(256);

const loginSchema = z.discriminatedUnion("flow", [
  z.object({ ...common, flow: z.literal("email_password"), username, password: z.string().min(1).max(256) }),
  z.object({ ...common, flow: z.literal("mfa_totp"), username, session, code }),
  z.object({ ...common, flow: z.literal("mfa_sms"), username, session, code }),
  z.object({ ...common, flow: z.literal("new_password"), username, session, password: z.string().min(1).max(1024) }),
]);

export const login = new Hono<EmulatorHono>();

login.get("/auth/v1/login", (c) => {
  const id = challenge.safeParse(c.req.query("login_challenge"));
  if (!id.success) throw problems.invalidRequest("login_challenge is required.");
  const request = requireLive(c.var.services.tickets, "login_challenge", id.data, c.var.now, "login challenge");
  // As Hydra's login request: `request_url` is the authorization request that led here, state, prompt, acr_values
  // and max_age included, so the login UI can tell whether this browser started it and what it asked for.
  const requestUrl = resumeUrl(c.var.site, request);
  return c.json({
    challenge: id.data,
    client_id: request.clientId,
    service_id: findClient(request.clientId)?.serviceId,
    requested_scope: request.scope.split(" ").filter(Boolean),
    request_url: requestUrl,
    // Hydra's OIDC context: the ACRs the app asked for. Hydra does not enforce them; the login UI must.
    oidc_context: { acr_values: (request.acrValues ?? "").split(" ").filter(Boolean) },
    skip: false,
  });
});

login.post("/auth/v1/login", async (c) => {
  const body = await jsonBody(c.req.raw, loginSchema);
  const { tickets, users, lockout } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");

  if (body.flow === "email_password") {
    const user = users.byLoginId(body.username);
    if (user === undefined || !user.confirmed) throw problems.invalidCredentials();
    // The transfer notice is about the account, not the password typed here (SPEC §8): checked first.
    if (user.transferInProgress) throw problems.rejectLogin();
    const device = deviceOf(body.device_id);
    // A locked attempt answers exactly like a wrong password, so it tells a guesser nothing (README, Limits).
    if (lockout.isLocked(user, device, now)) throw problems.invalidCredentials();
    if (!(await verifyPassword(body.password, user.passwordHash))) {
      lockout.recordFailure(user, device, now);
      throw problems.invalidCredentials();
    }
    lockout.recordSuccess(user, device);
    return nextStep(c, body.login_challenge, user, body.remember ?? false, device);
  }

  const pending = requireLive(tickets, "login_session", body.session, now, "session");
  if (pending.challenge !== body.login_challenge || pending.next !== body.flow)
    throw problems.challengeNotFound("session");
  const user = users.byUsername(pending.username);
  if (user === undefined) throw problems.challengeNotFound("session");
  // As a real provider: a session answers only for the user it was issued to. Another name counts as a failed
  // attempt against the session (its cap ends it) and looks exactly like an unknown session.
  if (users.byLoginId(body.username)?.username !== user.username) {
    tickets.recordWrongCode("login_session", body.session);
    throw problems.challengeNotFound("session");
  }

  if (body.flow === "new_password") {
    const problem = passwordProblem(body.password, findClient(request.clientId)?.serviceId);
    if (problem !== undefined) throw problems.invalidRequest(problem);
    users.update(user.username, { passwordHash: await hashPassword(body.password), forceChangePassword: false });
  } else if (!secondFactorMatches(c, user, body.flow, body.session, body.code)) {
    // SPEC §9: a 6-digit code is guessable, so wrong codes count against the session; after maxWrongCodes it is
    // dead and the next attempt answers challenge_expired (410), which sends the user back to the start.
    tickets.recordWrongCode("login_session", body.session);
    throw problems.invalidCode();
  }
  tickets.consume("login_session", body.session, now);
  if (body.flow === "new_password") {
    const changed = { ...user, forceChangePassword: false };
    return nextStep(c, body.login_challenge, changed, pending.remember, pending.deviceId);
  }
  const method = body.flow === "mfa_totp" ? loginMethods.passwordAndTotp : loginMethods.passwordAndSms;
  return completeLogin(c, body.login_challenge, user.username, pending.remember, pending.deviceId, method);
});

/**
 * The password login is accepted: the device that typed the password is known to the account from now on. The
 * answer carries `passkey_enrolment: {ticket, expires_in}`, "a single-use ticket for this user and this login (10
 * minutes), which `/registration/code`, `/attestation/options` and `/attestation/result` accept instead of the
 * bearer" (docs/passkeys.md, "Enrolment after a password sign-in"): the site holds no bearer here, the app gets the
 * code. `method` is a password login's, which never claims `phr`.
 */
function completeLogin(
  c: EmulatorContext,
  loginChallenge: string,
  username: string,
  remember: boolean,
  deviceId: string | undefined,
  method: LoginMethod & { acr: Exclude<Acr, "phr"> },
): Response {
  const { lockout, tickets } = c.var.services;
  lockout.rememberDevice(username, deviceId);
  const redirectTo = acceptLogin(c, loginChallenge, username, remember, method);
  const ticket = tickets.issue(
    "passkey_enrolment",
    randomToken(),
    { username, acr: method.acr },
    c.var.now + lifetimes.passkeyEnrolment,
  );
  return c.json(
    { redirect_to: redirectTo, passkey_enrolment: { ticket, expires_in: lifetimes.passkeyEnrolment / 1000 } },
    201,
  );
}

/** The TOTP code (±1 step) or the texted code of this session; an expired SMS code is expired_code, not wrong. */
function secondFactorMatches(
  c: EmulatorContext,
  user: User,
  flow: "mfa_totp" | "mfa_sms",
  session: string,
  code: string,
): boolean {
  const { tickets } = c.var.services;
  if (flow === "mfa_totp") return user.totpSecret !== null && totpValidates(user.totpSecret, code, c.var.now);
  const sms = tickets.find("sms_login_code", session, c.var.now);
  if (sms.status === "expired") throw problems.expiredCode();
  if (sms.status === "missing" || !sameCode(sms.data.code, code)) return false;
  tickets.consume("sms_login_code", session, c.var.now);
  return true;
}

/** A new password comes before the second factor; with neither left the login is accepted. */
function nextStep(
  c: EmulatorContext,
  loginChallenge: string,
  user: User,
  remember: boolean,
  deviceId: string | undefined,
): Response {
  const { tickets } = c.var.services;
  const now = c.var.now;
  let next: TicketKinds["login_session"]["next"] | undefined;
  if (user.forceChangePassword) next = "new_password";
  else if (user.mfaType === "totp") next = "mfa_totp";
  else if (user.mfaType === "sms") next = "mfa_sms";
  if (next === undefined)
    return completeLogin(c, loginChallenge, user.username, remember, deviceId, loginMethods.password);

  const session = tickets.issue(
    "login_session",
    randomToken(),
    { challenge: loginChallenge, username: user.username, next, remember, deviceId },
    now + lifetimes.loginSession,
  );
  if (next === "mfa_sms" && user.phone !== null) {
    const smsCode = sixDigitCode();
    tickets.issue("sms_login_code", session, { code: smsCode }, now + lifetimes.smsCode);
    c.var.services.outbox.send("sms", user.phone, mailCatalogue.smsCode(smsCode), now, { code: smsCode });
  }
  return c.json({ additional_flow: { next, session } }, 201);
}

login.get("/auth/v1/logout", async (c) => {
  // The session cookie has Path=/oauth2, so a browser sends it here only through a proxy that passes it on; the
  // bearer token of a signed-in client names its session too, even expired (up to the refresh tokens' lifetime,
  // as long as its session's refresh tokens could still be used). Either ends; a bad token is no reason to refuse.
  const grant = await bearerGrant(c, lifetimes.refreshToken);
  endBrowserSession(c, grant?.browserSession);
  return c.json({});
});

// SPEC §7 names these calls without their contract; the emulator says so instead of guessing one.
for (const path of [
  "/auth/v1/login/sendOtpEmail",
  "/auth/v1/register/otpEmail",
  "/auth/v1/tenants/:tenantId/loginHint",
]) {
  login.post(path, () => {
    throw new Problem(501, "not_implemented", "This call is not part of the emulated contract.");
  });
}
login.get("/auth/v1/tenants/:tenantId/loginHint/:key", () => {
  throw new Problem(501, "not_implemented", "This call is not part of the emulated contract.");
});
