import { type Context, Hono } from "hono";
import { z } from "zod";
import { type SignInMethod, signInMethods } from "../contract/authentication";
import { resumeUrl } from "../contract/authorizationRequest";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { sendLimits } from "../contract/limits";
import { type LoginContext, loginContextSchema, whereaboutsOf } from "../contract/loginContext";
import { mailCatalogue, noticeCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { Problem, problems } from "../contract/problem";
import { hashPassword, verifyPassword } from "../crypto/passwordHash";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { totpValidates } from "../crypto/totp";
import { requireLive, sameCode, type TicketKinds } from "../state/tickets";
import type { User } from "../state/users";
import {
  completedSignIn,
  maskedAddress,
  needsDeviceConfirmation,
  noticeFacts,
  noticeLock,
  recordSignIn,
  sendNotice,
} from "./accountEvents";
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
  // docs/devices.md: what the site sees of the browser and the edge; absent from a site that does not know it.
  context: loginContextSchema.optional(),
};
const session = z.string().min(1).max(256);
const code = z.string().max(32);
// SPEC §7: every flow's body names the user (the e-mail or the login ID, as typed at the password step).
const username = z.string().min(1).max(256);

const loginSchema = z.discriminatedUnion("flow", [
  z.object({
    ...common,
    flow: z.literal("email_password"),
    username,
    password: z.string().min(1).max(256),
    // docs/security.md "Leaked passwords": the site found this password on the leaked list. Right, it is a password
    // that must change before the login goes on; wrong, it changes nothing.
    password_leaked: z.literal(true).optional(),
  }),
  z.object({ ...common, flow: z.literal("mfa_totp"), username, session, code }),
  z.object({ ...common, flow: z.literal("mfa_sms"), username, session, code }),
  z.object({ ...common, flow: z.literal("new_password"), username, session, password: z.string().min(1).max(1024) }),
  z.object({ ...common, flow: z.literal("device_confirmation"), username, session, code, context: loginContextSchema }),
]);

/** A password login's way so far, as the history names it; a passkey login never comes this way. */
type PasswordSignIn = Exclude<SignInMethod, "passkey">;

/** Where a login stands between its steps: its challenge and client, whose, and what the site said of the browser. */
interface LoginInProgress {
  challenge: string;
  clientId: string;
  user: User;
  remember: boolean;
  context: LoginContext | undefined;
}

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
    const { context } = body;
    // SPEC §9's device_id names a device and proves nothing: only the device credential's digest makes one known.
    const digest = context?.device;
    const refused = (): Problem => {
      recordSignIn(c, user, request.clientId, "password", context, "refused");
      return problems.invalidCredentials();
    };
    // A locked attempt answers exactly like a wrong password, so it tells a guesser nothing (README, Limits).
    if (lockout.isLocked(user, digest, now)) throw refused();
    if (!(await verifyPassword(body.password, user.passwordHash))) {
      const lock = lockout.recordFailure(user, digest, now);
      if (lock !== undefined && context !== undefined)
        noticeLock(c, user, request.clientId, lock, whereaboutsOf(context));
      throw refused();
    }
    lockout.recordSuccess(user, digest);
    // Kept on the account, as an administrator's forced change is: a login left at the new-password step, and the
    // next one from a site that did not check, still has to change it.
    if (body.password_leaked && !user.forceChangePassword) users.update(user.username, { forceChangePassword: true });
    const remember = body.remember ?? false;
    const checked = body.password_leaked ? { ...user, forceChangePassword: true } : user;
    return nextStep(c, {
      challenge: body.login_challenge,
      clientId: request.clientId,
      user: checked,
      remember,
      context,
    });
  }

  const pending = requireLive(tickets, "login_session", body.session, now, "session");
  if (pending.challenge !== body.login_challenge || pending.next !== body.flow)
    throw problems.challengeNotFound("session");
  const user = users.byUsername(pending.username);
  if (user === undefined) throw problems.challengeNotFound("session");
  // As a real provider: a session answers only for the user it was issued to, and (docs/devices.md) only to the
  // device that typed the password. Another name or device counts as a failed attempt against the session (its cap
  // ends it) and looks exactly like an unknown session.
  if (users.byLoginId(body.username)?.username !== user.username || !sameDevice(pending.context, body.context)) {
    tickets.recordWrongCode("login_session", body.session);
    throw problems.challengeNotFound("session");
  }
  const progress: LoginInProgress = {
    challenge: body.login_challenge,
    clientId: request.clientId,
    user,
    remember: pending.remember,
    context: body.context ?? pending.context,
  };

  if (body.flow === "device_confirmation") {
    // Always so (the session's `next` is the flow, above); said again for the session's `method`.
    if (pending.next !== "device_confirmation") throw problems.challengeNotFound("session");
    const mailed = tickets.find("device_code", body.session, now);
    if (mailed.status !== "valid" || !sameCode(mailed.data.code, body.code)) {
      tickets.recordWrongCode("login_session", body.session);
      recordSignIn(c, user, request.clientId, pending.method, progress.context, "refused");
      throw problems.invalidCode();
    }
    tickets.consume("device_code", body.session, now);
    tickets.consume("login_session", body.session, now);
    return acceptPasswordLogin(c, progress, pending.method, true);
  }

  if (body.flow === "new_password") {
    const problem = passwordProblem(body.password, findClient(request.clientId)?.serviceId);
    if (problem !== undefined) throw problems.invalidRequest(problem);
    users.update(user.username, { passwordHash: await hashPassword(body.password), forceChangePassword: false });
    tickets.consume("login_session", body.session, now);
    const whereabouts = progress.context && whereaboutsOf(progress.context);
    const facts = noticeFacts(c, request.clientId, { change: "forced_password" }, whereabouts);
    sendNotice(c, user.email, noticeCatalogue.passwordChanged(facts));
    return nextStep(c, { ...progress, user: { ...user, forceChangePassword: false } });
  }
  const method = body.flow === "mfa_totp" ? "password_totp" : "password_sms";
  if (!secondFactorMatches(c, user, body.flow, body.session, body.code)) {
    // SPEC §9: a 6-digit code is guessable, so wrong codes count against the session; after maxWrongCodes it is
    // dead and the next attempt answers challenge_expired (410), which sends the user back to the start.
    tickets.recordWrongCode("login_session", body.session);
    recordSignIn(c, user, request.clientId, method, progress.context, "refused");
    throw problems.invalidCode();
  }
  tickets.consume("login_session", body.session, now);
  return completeLogin(c, progress, method);
});

/**
 * A later step is held to the device of the password step: when both name one, it is the same. A step without
 * `context` goes on with the password step's.
 */
function sameDevice(before: LoginContext | undefined, now: LoginContext | undefined): boolean {
  return before === undefined || now === undefined || before.device === now.device;
}

/**
 * The password and every other step are done. A login that carries the site's context is then held to the device
 * policy (docs/devices.md): from a device or a country the account does not know, a code mailed to the account
 * completes it instead.
 */
function completeLogin(c: EmulatorContext, progress: LoginInProgress, method: PasswordSignIn): Response {
  const { context, user } = progress;
  if (context !== undefined && needsDeviceConfirmation(c, user.username, context))
    return startDeviceConfirmation(c, progress, context, method);
  return acceptPasswordLogin(c, progress, method, false);
}

/**
 * The password login is accepted: the device it came from is known to the account from now on, the history and a
 * notice record it. The answer carries `passkey_enrolment: {ticket, expires_in}`, "a single-use ticket for this user
 * and this login (10 minutes), which `/registration/code`, `/attestation/options` and `/attestation/result` accept
 * instead of the bearer" (docs/passkeys.md, "Enrolment after a password sign-in"): the site holds no bearer here, the
 * app gets the code. A password login never claims `phr`.
 */
function acceptPasswordLogin(
  c: EmulatorContext,
  progress: LoginInProgress,
  method: PasswordSignIn,
  deviceConfirmed: boolean,
): Response {
  const { tickets } = c.var.services;
  const { user, context } = progress;
  completedSignIn(c, user, progress.clientId, method, context, { notice: true, deviceConfirmed });
  const login = signInMethods[method];
  const redirectTo = acceptLogin(c, progress.challenge, user.username, progress.remember, login, context?.device);
  const ticket = tickets.issue(
    "passkey_enrolment",
    randomToken(),
    { username: user.username, acr: login.acr },
    c.var.now + lifetimes.passkeyEnrolment,
  );
  return c.json(
    { redirect_to: redirectTo, passkey_enrolment: { ticket, expires_in: lifetimes.passkeyEnrolment / 1000 } },
    201,
  );
}

/** docs/devices.md: a session for the code, the code mailed, and the masked address it went to. */
function startDeviceConfirmation(
  c: EmulatorContext,
  progress: LoginInProgress,
  context: LoginContext,
  method: PasswordSignIn,
): Response {
  const { tickets, sendLog } = c.var.services;
  const { user } = progress;
  const session = tickets.issue(
    "login_session",
    randomToken(),
    {
      challenge: progress.challenge,
      username: user.username,
      remember: progress.remember,
      context,
      next: "device_confirmation",
      method,
    },
    c.var.now + lifetimes.deviceConfirmation,
  );
  sendLog.take("device_code", session, sendLimits.deviceCode, c.var.now);
  mailDeviceCode(c, session, user, progress.clientId, context, method);
  return c.json(
    { additional_flow: { next: "device_confirmation", session, destination: maskedAddress(user.email) } },
    201,
  );
}

/** A new code for the session, valid 10 minutes; it replaces the one before, which is void from now on. */
function mailDeviceCode(
  c: EmulatorContext,
  session: string,
  user: User,
  clientId: string,
  context: LoginContext,
  method: PasswordSignIn,
): void {
  const deviceCode = sixDigitCode();
  c.var.services.tickets.issue("device_code", session, { code: deviceCode }, c.var.now + lifetimes.deviceConfirmation);
  const facts = noticeFacts(c, clientId, { signIn: method }, whereaboutsOf(context));
  sendNotice(c, user.email, noticeCatalogue.deviceCode(facts, deviceCode), { code: deviceCode });
}

login.post("/auth/v1/login/device/resend", async (c) => {
  const body = await jsonBody(c.req.raw, z.object({ login_challenge: challenge, session }));
  const { tickets, users, sendLog } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");
  const pending = requireLive(tickets, "login_session", body.session, now, "session");
  const user = users.byUsername(pending.username);
  if (
    pending.challenge !== body.login_challenge ||
    pending.next !== "device_confirmation" ||
    pending.context === undefined ||
    user === undefined
  )
    throw problems.challengeNotFound("session");
  const decision = sendLog.take("device_code", body.session, sendLimits.deviceCode, now);
  // The code mailed last stays the valid one.
  if (!decision.allowed)
    throw problems.tooManyRequests("Three codes were mailed for this session; sign in again.", decision.retryAfterMs);
  // The new code gets its full 10 minutes, and the session with it; the wrong codes it took still count.
  tickets.renew("login_session", body.session, now + lifetimes.deviceConfirmation);
  mailDeviceCode(c, body.session, user, request.clientId, pending.context, pending.method);
  return c.json({}, 201);
});

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

/** A new password comes before the second factor; with neither left the login is complete. */
function nextStep(c: EmulatorContext, progress: LoginInProgress): Response {
  const { tickets } = c.var.services;
  const { user } = progress;
  const now = c.var.now;
  let next: "mfa_totp" | "mfa_sms" | "new_password" | undefined;
  if (user.forceChangePassword) next = "new_password";
  else if (user.mfaType === "totp") next = "mfa_totp";
  else if (user.mfaType === "sms") next = "mfa_sms";
  if (next === undefined) return completeLogin(c, progress, "password");

  const data: TicketKinds["login_session"] = {
    challenge: progress.challenge,
    username: user.username,
    next,
    remember: progress.remember,
    context: progress.context,
  };
  const session = tickets.issue("login_session", randomToken(), data, now + lifetimes.loginSession);
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
