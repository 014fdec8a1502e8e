import { type Context, Hono } from "hono";
import { z } from "zod";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { sendLimits } from "../contract/limits";
import { mailCatalogue } from "../contract/mailCatalogue";
import { passwordProblem } from "../contract/passwordPolicy";
import { problems } from "../contract/problem";
import { hashPassword } from "../crypto/passwordHash";
import { sixDigitCode } from "../crypto/randomValues";
import { redeemCode, requireLive } from "../state/tickets";
import { newUser } from "../state/users";
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
  const problem = passwordProblem(body.password, findClient(request.clientId)?.serviceId);
  if (problem !== undefined) throw problems.invalidRequest(problem);
  const existing = users.byEmail(body.email);
  if (existing?.confirmed) throw problems.alreadyRegistered();
  const passwordHash = await hashPassword(body.password);
  // An unconfirmed sign-up may start over: same username, new password, new code.
  let username: string;
  if (existing) {
    username = existing.username;
    users.update(username, { passwordHash });
  } else {
    username = crypto.randomUUID();
    users.insert(newUser(username, body.email, passwordHash, c.var.now));
  }
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
    }),
  );
  const { tickets, users } = c.var.services;
  requireLive(tickets, "login_challenge", body.login_challenge, c.var.now, "login challenge");
  const user = users.byUsername(body.username);
  if (user === undefined || user.confirmed) throw problems.invalidCode();
  redeemCode(tickets, "signup_code", user.username, body.code, c.var.now);
  users.update(user.username, { confirmed: true, emailVerified: true });
  return c.json({ redirect_to: acceptLogin(c, body.login_challenge, user.username, body.remember ?? false) }, 201);
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

function mailSignUpCode(c: EmulatorContext, username: string, address: string): void {
  const code = sixDigitCode();
  c.var.services.tickets.issue("signup_code", username, { code }, c.var.now + lifetimes.signUpCode);
  c.var.services.outbox.send("email", address, mailCatalogue.signUpCode(code), c.var.now, { code });
}
