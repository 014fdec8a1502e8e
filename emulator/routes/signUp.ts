import { type Context, Hono } from "hono";
import { z } from "zod";
import { loginMethods } from "../contract/authentication";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { sendLimits } from "../contract/limits";
import { loginContextSchema } from "../contract/loginContext";
import { mailCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { problems } from "../contract/problem";
import { hashPassword } from "../crypto/passwordHash";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { redeemCode, requireLive } from "../state/tickets";
import { newUser } from "../state/users";
import { completedSignIn } from "./accountEvents";
import { acceptLogin } from "./authorizationFlow";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

const challenge = z.string().min(1).max(4096);
const email = z.email().max(254);

export const signUp = new Hono<EmulatorHono>();

signUp.post("/auth/v1/register/checkEmail", async (c) => {
  const body = await jsonBody(c.req.raw, z.object({ login_challenge: challenge.optional(), email }));
  const user = c.var.services.users.byEmail(body.email);
  return c.json({ registered: user?.confirmed === true });
});

signUp.post("/auth/v1/register", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      login_challenge: challenge,
      flow: z.string().max(64).optional(),
      email,
      password: z.string().min(1).max(1024),
    }),
  );
  const { users } = c.var.services;
  const request = requireLive(
    c.var.services.tickets,
    "login_challenge",
    body.login_challenge,
    c.var.now,
    "login challenge",
  );
  // docs/operations.md: an operation's login is a signed-in customer's passkey, never a new account.
  if (request.operation !== undefined) throw problems.operationRequiresPasskey();
  const problem = passwordProblem(body.password, findClient(request.clientId)?.serviceId);
  if (problem !== undefined) throw problems.invalidRequest(problem);
  const existing = users.byEmail(body.email);
  if (existing?.confirmed) throw problems.alreadyRegistered();
  const passwordHash = await hashPassword(body.password);
  // An unconfirmed sign-up may start over (same username, new code), but whoever starts it over has not shown
  // that the mailbox is theirs: the account keeps its password, and this one waits until the new code is
  // confirmed through this sign-up (this login challenge), which only the mailbox's holder can do.
  let username: string;
  if (existing) {
    username = existing.username;
  } else {
    username = crypto.randomUUID();
    users.insert(newUser(username, body.email, passwordHash, c.var.now));
  }
  c.var.services.tickets.issue(
    "signup_password",
    signUpPasswordId(username, body.login_challenge),
    { passwordHash },
    c.var.now + lifetimes.signUpCode,
  );
  mailSignUpCode(c, username, body.email);
  return c.json({ username }, 201);
});

signUp.post("/auth/v1/register/confirm", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      login_challenge: challenge,
      username: z.string().min(1).max(256),
      code: z.string().max(32),
      remember: z.boolean().optional(),
      context: loginContextSchema.optional(),
    }),
  );
  const { tickets, users } = c.var.services;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, c.var.now, "login challenge");
  if (request.operation !== undefined) throw problems.operationRequiresPasskey();
  const user = users.byUsername(body.username);
  if (user === undefined || user.confirmed) throw problems.invalidCode();
  redeemCode(tickets, "signup_code", user.username, body.code, c.var.now);
  // The password this sign-up chose, if it chose one; otherwise the account's stays (see /auth/v1/register).
  const chosenId = signUpPasswordId(user.username, body.login_challenge);
  const chosen = tickets.find("signup_password", chosenId, c.var.now);
  if (chosen.status === "valid") tickets.consume("signup_password", chosenId, c.var.now);
  users.update(user.username, {
    confirmed: true,
    emailVerified: true,
    ...(chosen.status === "valid" ? { passwordHash: chosen.data.passwordHash } : {}),
  });
  // docs/devices.md: the address was just proven on this device, so it becomes known; the customer has just signed
  // up, so no sign-in notice.
  completedSignIn(c, user, request.clientId, "password", body.context, { notice: false });
  const redirectTo = acceptLogin(
    c,
    body.login_challenge,
    user.username,
    body.remember ?? false,
    loginMethods.password,
    body.context?.device,
  );
  // docs/passkeys.md "Passkey first": the new account may register its first passkey with this ticket and no
  // further mailed code, since the code just confirmed proved the mailbox. Single-use, 10 minutes, as a login's.
  const ticket = tickets.issue(
    "passkey_enrolment",
    randomToken(),
    {
      username: user.username,
      acr: loginMethods.password.acr,
      emailProven: true,
      clientId: request.clientId,
      device: body.context?.device,
    },
    c.var.now + lifetimes.passkeyEnrolment,
  );
  return c.json(
    { redirect_to: redirectTo, passkey_enrolment: { ticket, expires_in: lifetimes.passkeyEnrolment / 1000 } },
    201,
  );
});

signUp.post("/auth/v1/register/confirm/resend", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({ login_challenge: challenge, username: z.string().min(1).max(256) }),
  );
  requireLive(c.var.services.tickets, "login_challenge", body.login_challenge, c.var.now, "login challenge");
  // Counted per username asked for, known or not, so the refusal too tells nothing about accounts.
  const decision = c.var.services.sendLog.take("sign_up_resend", body.username, sendLimits.signUpResend, c.var.now);
  if (!decision.allowed) {
    throw problems.tooManyRequests(
      "Too many codes were sent for this sign-up; try again later.",
      decision.retryAfterMs,
    );
  }
  const user = c.var.services.users.byUsername(body.username);
  // Unknown or already confirmed: answer the same, so the call tells nothing about accounts.
  if (user !== undefined && !user.confirmed) mailSignUpCode(c, user.username, user.email);
  return c.json({}, 201);
});

/** One pending password per account and sign-up: the sign-up is the login challenge it runs under. */
function signUpPasswordId(username: string, loginChallenge: string): string {
  return `${username} ${loginChallenge}`;
}

function mailSignUpCode(c: EmulatorContext, username: string, address: string): void {
  const code = sixDigitCode();
  c.var.services.tickets.issue("signup_code", username, { code }, c.var.now + lifetimes.signUpCode);
  c.var.services.outbox.send("email", address, mailCatalogue.signUpCode(code), c.var.now, { code });
}
