import { type Context, Hono } from "hono";
import { z } from "zod";
import { type SignInMethod, signInMethods } from "../contract/authentication";
import { type AuthorizationRequest, resumeUrl } from "../contract/authorizationRequest";
import { findClient, noticeBrand } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { deviceCodeWrongAccount, newDevicesSuspendedNotice, sendLimits } from "../contract/limits";
import { type LoginContext, loginContextSchema } from "../contract/loginContext";
import { mailCatalogue, noticeCatalogue } from "../contract/mailCatalogue";
import { operationType, type PushedOperation } from "../contract/operations";
import { passwordProblem } from "../contract/passwordPolicy";
import { Problem, problems } from "../contract/problem";
import { hashPassword, verifyPassword } from "../crypto/passwordHash";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { totpValidates } from "../crypto/totp";
import { requireLive, sameCode, type TicketKinds } from "../state/tickets";
import type { User } from "../state/users";
import {
  completedApproval,
  completedSignIn,
  maskedAddress,
  needsDeviceConfirmation,
  noticedWhereabouts,
  noticeFacts,
  noticeLock,
  recordSignIn,
  sendNotice,
  signInWhereabouts,
} from "./accountEvents";
import { acceptLogin, endBrowserSession } from "./authorizationFlow";
import { bearerGrant } from "./bearer";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";
import { endEverythingElse } from "./revocation";

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
// product §7: every flow's body names the user (the e-mail or the login ID, as typed at the password step).
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
  z.object({ ...common, flow: z.literal("device_confirmation"), username, session, code }),
]);

/** A password login's way so far, as the history names it; a passkey login never comes this way. */
type PasswordSignIn = Exclude<SignInMethod, "passkey">;

/**
 * Where a login stands between its steps: its challenge and client, whose, what the site said of the browser, and
 * what it has passed so far (the session data of tickets.ts `login_session`).
 */
interface LoginInProgress {
  challenge: string;
  clientId: string;
  user: User;
  remember: boolean;
  context: LoginContext | undefined;
  method: PasswordSignIn;
  deviceConfirmed: boolean;
  passwordLeaked: boolean;
  /** The operation this login approves, by the brand's temporary alternative (docs/operations.md); else a sign-in. */
  operation: PushedOperation | undefined;
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
    // docs/operations.md: the pushed operation this login approves, for the login UI to show; absent for a sign-in.
    ...(request.operation === undefined ? {} : { authorization_details: request.operation.details }),
  });
});

login.post("/auth/v1/login", async (c) => {
  const body = await jsonBody(c.req.raw, loginSchema);
  const { tickets, users, lockout } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");
  // docs/operations.md: an operation's login is a passkey's, unless its brand allows the password and a second factor
  // for now; it never changes the password. Otherwise nothing the body carries is checked.
  const { operation } = request;
  if (operation !== undefined && (!approvesByCode(request.clientId) || body.flow === "new_password"))
    throw problems.operationRequiresPasskey();
  // A refusal in the history names the operation it was for (docs/operations.md, "Notice and history").
  const refusedFor = operation === undefined ? null : operationType(operation);

  if (body.flow === "email_password") {
    const user = users.byLoginId(body.username);
    if (user === undefined || !user.confirmed) throw problems.invalidCredentials();
    // The transfer notice is about the account, not the password typed here (product §8): checked first.
    if (user.transferInProgress) throw problems.rejectLogin();
    const { context } = body;
    // product §9's device_id names a device and proves nothing: only the device credential's digest makes one known.
    const digest = context?.device;
    const refused = (): Problem => {
      recordSignIn(c, user, request.clientId, "password", context, "refused", refusedFor);
      return problems.invalidCredentials();
    };
    // A locked attempt answers exactly like a wrong password, so it tells a guesser nothing (README, Limits).
    if (lockout.isLocked(user, digest, now)) throw refused();
    if (!(await verifyPassword(body.password, user.passwordHash))) {
      const lock = lockout.recordFailure(user, digest, now);
      if (lock !== undefined && signInWhereabouts(user, context) !== undefined)
        noticeLock(c, user, request.clientId, lock, noticedWhereabouts(context));
      throw refused();
    }
    lockout.recordSuccess(user, digest);
    // The alternative is the password and a second factor: an account without one has only the passkey way.
    if (operation !== undefined && user.mfaType === "none") throw problems.operationRequiresSecondFactor();
    return nextStep(c, {
      challenge: body.login_challenge,
      clientId: request.clientId,
      user,
      remember: body.remember ?? false,
      context,
      method: "password",
      deviceConfirmed: false,
      // Carried, not written: the account learns that its password must change only once every factor has passed.
      passwordLeaked: body.password_leaked ?? false,
      operation,
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
    method: pending.method,
    deviceConfirmed: pending.deviceConfirmed ?? false,
    passwordLeaked: pending.passwordLeaked ?? false,
    operation,
  };

  if (body.flow === "device_confirmation") {
    // Wrong codes count against the account too: past its limit even the right code is refused, in every session.
    refuseWhileNewDevicesSuspended(c, progress);
    const mailed = tickets.find("device_code", body.session, now);
    if (mailed.status !== "valid" || !sameCode(mailed.data.code, body.code)) {
      tickets.recordWrongCode("login_session", body.session);
      c.var.services.sendLog.log("device_code_wrong", user.username, now);
      recordSignIn(c, user, request.clientId, progress.method, progress.context, "refused", refusedFor);
      refuseWhileNewDevicesSuspended(c, progress, { recorded: true });
      throw problems.invalidCode();
    }
    tickets.consume("device_code", body.session, now);
    tickets.consume("login_session", body.session, now);
    return nextStep(c, { ...progress, deviceConfirmed: true });
  }

  if (body.flow === "new_password") {
    const problem = passwordProblem(body.password, findClient(request.clientId)?.serviceId);
    if (problem !== undefined) throw problems.invalidRequest(problem);
    users.update(user.username, { passwordHash: await hashPassword(body.password), forceChangePassword: false });
    tickets.consume("login_session", body.session, now);
    // A changed password ends every other session and forgets every other device, as a change made signed in does.
    endEverythingElse(c, user.username, { device: progress.context?.device });
    const facts = noticeFacts(c, request.clientId, { change: "forced_password" }, noticedWhereabouts(progress.context));
    sendNotice(c, user.email, noticeCatalogue.passwordChanged(facts, "others"));
    return nextStep(c, { ...progress, user: { ...user, forceChangePassword: false }, passwordLeaked: false });
  }
  const method = body.flow === "mfa_totp" ? "password_totp" : "password_sms";
  if (!secondFactorMatches(c, user, body.flow, body.session, body.code)) {
    // product §9: a 6-digit code is guessable, so wrong codes count against the session; after maxWrongCodes it is
    // dead and the next attempt answers challenge_expired (410), which sends the user back to the start.
    tickets.recordWrongCode("login_session", body.session);
    recordSignIn(c, user, request.clientId, method, progress.context, "refused", refusedFor);
    throw problems.invalidCode();
  }
  tickets.consume("login_session", body.session, now);
  return nextStep(c, { ...progress, method });
});

/**
 * A later step is held to the device of the password step: when both name one, it is the same. A step without
 * `context` goes on with the password step's.
 */
function sameDevice(before: LoginContext | undefined, now: LoginContext | undefined): boolean {
  return before === undefined || now === undefined || before.device === now.device;
}

/**
 * docs/devices.md, "The step order": the password, then the second factor, then (from a device or country the
 * account does not know) the code mailed to the account, then a new password where one is due, and only then is the
 * login accepted. Nothing on the account changes before every factor has passed: a stranger with the password alone
 * can neither set a new one nor make the owner's device known.
 */
function nextStep(c: EmulatorContext, progress: LoginInProgress): Response {
  const { user } = progress;
  if (progress.method === "password" && user.mfaType !== "none")
    return issueStep(c, progress, user.mfaType === "totp" ? "mfa_totp" : "mfa_sms");
  if (!progress.deviceConfirmed && needsDeviceConfirmation(c, user, progress.context))
    return startDeviceConfirmation(c, progress);
  if (user.forceChangePassword || progress.passwordLeaked) {
    // Kept on the account from here, as an administrator's forced change is: a login left at the new-password step,
    // and the next one from a site that did not check, still has to change it.
    if (!user.forceChangePassword) c.var.services.users.update(user.username, { forceChangePassword: true });
    // An operation's approval changes nothing on the account: the next sign-in asks for the new password.
    if (progress.operation === undefined) return issueStep(c, progress, "new_password");
  }
  return acceptPasswordLogin(c, progress);
}

/** The session of the login's next step (and the SMS of an SMS step). */
function issueStep(
  c: EmulatorContext,
  progress: LoginInProgress,
  next: "mfa_totp" | "mfa_sms" | "new_password",
): Response {
  const { tickets } = c.var.services;
  const { user } = progress;
  const now = c.var.now;
  const session = tickets.issue(
    "login_session",
    randomToken(),
    sessionData(progress, next),
    now + lifetimes.loginSession,
  );
  if (next === "mfa_sms" && user.phone !== null) {
    const smsCode = sixDigitCode();
    tickets.issue("sms_login_code", session, { code: smsCode }, now + lifetimes.smsCode);
    // An operation's code says what it approves (docs/operations.md).
    const [detail] = progress.operation?.details ?? [];
    const text =
      detail === undefined
        ? mailCatalogue.smsCode(smsCode)
        : mailCatalogue.operationSmsCode(smsCode, detail, noticeBrand(progress.clientId));
    c.var.services.outbox.send("sms", user.phone, text, now, { code: smsCode });
  }
  return c.json({ additional_flow: { next, session } }, 201);
}

function sessionData(
  progress: LoginInProgress,
  next: TicketKinds["login_session"]["next"],
): TicketKinds["login_session"] {
  return {
    challenge: progress.challenge,
    username: progress.user.username,
    remember: progress.remember,
    context: progress.context,
    next,
    method: progress.method,
    deviceConfirmed: progress.deviceConfirmed,
    passwordLeaked: progress.passwordLeaked,
  };
}

/**
 * The password login is accepted: the device it came from is known to the account from now on, the history and a
 * notice record it. The answer carries `passkey_enrolment: {ticket, expires_in}`, "a single-use ticket for this user
 * and this login (10 minutes), which `/registration/code`, `/attestation/options` and `/attestation/result` accept
 * instead of the bearer" (docs/passkeys.md, "Enrolment after a password sign-in"): the site holds no bearer here, the
 * app gets the code. A password login never claims `phr`.
 */
function acceptPasswordLogin(c: EmulatorContext, progress: LoginInProgress): Response {
  const { tickets } = c.var.services;
  const { user, context, method, operation } = progress;
  const login = signInMethods[method];
  if (operation !== undefined) {
    // docs/operations.md, "Notice and history": recorded and noticed as the approval it is; no passkey enrolment
    // follows an approval.
    completedApproval(c, user, progress.clientId, method, context, operation);
    const redirectTo = acceptLogin(c, progress.challenge, user.username, progress.remember, login, context?.device);
    return c.json({ redirect_to: redirectTo }, 201);
  }
  completedSignIn(c, user, progress.clientId, method, context, {
    notice: true,
    deviceConfirmed: progress.deviceConfirmed,
  });
  const redirectTo = acceptLogin(c, progress.challenge, user.username, progress.remember, login, context?.device);
  const ticket = tickets.issue(
    "passkey_enrolment",
    randomToken(),
    { username: user.username, acr: login.acr, clientId: progress.clientId, device: context?.device },
    c.var.now + lifetimes.passkeyEnrolment,
  );
  return c.json(
    { redirect_to: redirectTo, passkey_enrolment: { ticket, expires_in: lifetimes.passkeyEnrolment / 1000 } },
    201,
  );
}

/** Whether the client's brand lets its customers approve an operation with the password and a second factor. */
function approvesByCode(clientId: string): boolean {
  return findClient(clientId)?.operationConfirmation === "passkeyOrCode";
}

/**
 * While the account's new devices are suspended (too many wrong device codes within the window), a login that needs
 * a device code is refused: 429 `new_devices_suspended`, and the account is told once a window. `recorded`: the
 * refusal is already in the history (a wrong code that reached the limit).
 */
function refuseWhileNewDevicesSuspended(
  c: EmulatorContext,
  progress: LoginInProgress,
  options: { recorded?: boolean } = {},
): void {
  const { user } = progress;
  const wrong = c.var.services.sendLog.check("device_code_wrong", user.username, deviceCodeWrongAccount, c.var.now);
  if (!wrong.allowed) refuseNewDevice(c, progress, wrong.retryAfterMs, options);
}

function refuseNewDevice(
  c: EmulatorContext,
  progress: LoginInProgress,
  retryAfterMs: number,
  options: { recorded?: boolean } = {},
): never {
  const { user, context, clientId } = progress;
  const refusedFor = progress.operation === undefined ? null : operationType(progress.operation);
  if (!options.recorded) recordSignIn(c, user, clientId, progress.method, context, "refused", refusedFor);
  const once = c.var.services.sendLog.take(
    "new_devices_suspended_notice",
    user.username,
    newDevicesSuspendedNotice,
    c.var.now,
  );
  if (once.allowed) {
    const facts = noticeFacts(c, clientId, { signIn: progress.method }, noticedWhereabouts(context));
    sendNotice(c, user.email, noticeCatalogue.newDevicesSuspended(facts, retryAfterMs));
  }
  throw problems.newDevicesSuspended(retryAfterMs);
}

/**
 * docs/devices.md: a session for the code, the code mailed, and the masked address it went to. The account's own
 * limits come first: its wrong codes, then its mails (contract/limits.ts), every session together.
 */
function startDeviceConfirmation(c: EmulatorContext, progress: LoginInProgress): Response {
  const { tickets, sendLog } = c.var.services;
  const { user } = progress;
  const now = c.var.now;
  refuseWhileNewDevicesSuspended(c, progress);
  const mail = sendLog.take("device_code_account", user.username, sendLimits.deviceCodeAccount, now);
  if (!mail.allowed) refuseNewDevice(c, progress, mail.retryAfterMs);
  const session = tickets.issue(
    "login_session",
    randomToken(),
    sessionData(progress, "device_confirmation"),
    now + lifetimes.deviceConfirmation,
  );
  sendLog.take("device_code", session, sendLimits.deviceCode, now);
  mailDeviceCode(c, session, user, progress.clientId, progress.context, progress.method);
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
  context: LoginContext | undefined,
  method: PasswordSignIn,
): void {
  const deviceCode = sixDigitCode();
  c.var.services.tickets.issue("device_code", session, { code: deviceCode }, c.var.now + lifetimes.deviceConfirmation);
  const facts = noticeFacts(c, clientId, { signIn: method }, noticedWhereabouts(context));
  sendNotice(c, user.email, noticeCatalogue.deviceCode(facts, deviceCode), { code: deviceCode });
}

login.post("/auth/v1/login/device/resend", async (c) => {
  const body = await jsonBody(c.req.raw, z.object({ login_challenge: challenge, session }));
  const { tickets, users, sendLog } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");
  const pending = requireLive(tickets, "login_session", body.session, now, "session");
  const user = users.byUsername(pending.username);
  if (pending.challenge !== body.login_challenge || pending.next !== "device_confirmation" || user === undefined)
    throw problems.challengeNotFound("session");
  const progress: LoginInProgress = {
    challenge: body.login_challenge,
    clientId: request.clientId,
    user,
    remember: pending.remember,
    context: pending.context,
    method: pending.method,
    deviceConfirmed: false,
    passwordLeaked: pending.passwordLeaked ?? false,
    operation: request.operation,
  };
  const perSession = sendLog.check("device_code", body.session, sendLimits.deviceCode, now);
  // The code mailed last stays the valid one.
  if (!perSession.allowed)
    throw problems.tooManyRequests("Three codes were mailed for this session; sign in again.", perSession.retryAfterMs);
  refuseWhileNewDevicesSuspended(c, progress);
  const perAccount = sendLog.take("device_code_account", user.username, sendLimits.deviceCodeAccount, now);
  if (!perAccount.allowed) refuseNewDevice(c, progress, perAccount.retryAfterMs);
  sendLog.log("device_code", body.session, now);
  // The new code gets its full 10 minutes, and the session with it; the wrong codes it took still count.
  tickets.renew("login_session", body.session, now + lifetimes.deviceConfirmation);
  mailDeviceCode(c, body.session, user, request.clientId, pending.context, pending.method);
  return c.json({}, 201);
});

/** RFC 6749 §4.1.2.1's `error_description`: printable ASCII without `"` or `\`. */
const errorDescription = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/, "error_description must be printable ASCII without quote or backslash");

const rejectSchema = z.object({
  login_challenge: challenge,
  // The one error a login UI answers for a customer who declined (RFC 6749 §4.1.2.1).
  error: z.literal("access_denied"),
  error_description: errorDescription.optional(),
  context: loginContextSchema.optional(),
});

/**
 * docs/operations.md, "Calls": the login UI rejects the login, as Hydra's reject: the challenge is used up, and
 * `redirect_to` is the authorization endpoint's, whose `login_verifier` sends the browser on to the request's redirect
 * URI with `error`, `error_description` and its `state`. Any login challenge may be rejected; an operation's cancel
 * goes into the history (below).
 */
login.post("/auth/v1/login/reject", async (c) => {
  const body = await jsonBody(c.req.raw, rejectSchema);
  const { tickets } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");
  tickets.consume("login_challenge", body.login_challenge, now);
  recordCancel(c, request, body.context);
  const verifier = tickets.issue(
    "login_rejection",
    randomToken(),
    {
      request,
      error: body.error,
      description: body.error_description ?? "The resource owner denied the request.",
    },
    now + lifetimes.verifier,
  );
  return c.json({ redirect_to: resumeUrl(c.var.site, request, { login_verifier: verifier }) }, 201);
});

/**
 * docs/operations.md, "Notice and history": an operation's cancel is recorded as a `passkey` `cancelled` row with its
 * type. Nobody has signed in at a cancel, so the row goes to the account that last completed a sign-in from the
 * cancelling device (`context.device`); a device no account knows, or no `context`, records nothing.
 */
function recordCancel(c: EmulatorContext, request: AuthorizationRequest, context: LoginContext | undefined): void {
  const digest = context?.device;
  if (request.operation === undefined || digest === undefined) return;
  const { devices, users } = c.var.services;
  const username = devices.lastAccountOf(digest);
  const user = username === undefined ? undefined : users.byUsername(username);
  if (user === undefined) return;
  recordSignIn(c, user, request.clientId, "passkey", context, "cancelled", operationType(request.operation));
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

login.get("/auth/v1/logout", async (c) => {
  // The session cookie has Path=/oauth2, so a browser sends it here only through a proxy that passes it on; the
  // bearer token of a signed-in client names its session too, even expired (up to the refresh tokens' lifetime,
  // as long as its session's refresh tokens could still be used). Either ends; a bad token is no reason to refuse.
  const grant = await bearerGrant(c, lifetimes.refreshToken);
  endBrowserSession(c, grant?.browserSession);
  return c.json({});
});

// product §7 names these calls without their contract; the emulator says so instead of guessing one.
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
