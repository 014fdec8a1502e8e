import { Hono } from "hono";
import { z } from "zod";
import { oauthClients, registeredRedirectUris } from "../contract/clients";
import { deviceDigestSchema } from "../contract/loginContext";
import { Problem, problems } from "../contract/problem";
import { hashPassword } from "../crypto/passwordHash";
import { randomToken } from "../crypto/randomValues";
import { clockOffset, setClockOffset } from "../state/clock";
import { compilePattern, faultSchema, releaseHeldCalls } from "../state/faults";
import { resetState } from "../state/store";
import { newUser, type User } from "../state/users";
import type { EmulatorHono } from "./context";
import { outboxPage, outboxStyles } from "./outboxPage";
import { jsonBody } from "./requestBody";

const seedUserSchema = z.object({
  email: z.email().max(254),
  password: z.string().min(1).max(1024),
  username: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/)
    .optional(),
  emailVerified: z.boolean().default(true),
  confirmed: z.boolean().default(true),
  mfa: z
    .union([
      z.literal("none"),
      z.object({ totp: z.string().regex(/^[A-Z2-7]{16,128}=*$/, "totp must be a base32 secret") }),
      z.object({ sms: z.string().regex(/^\+\d{6,15}$/, "sms must be a phone number like +8109012345678") }),
    ])
    .default("none"),
  forceChangePassword: z.boolean().default(false),
  transferInProgress: z.boolean().default(false),
  /**
   * A passkey the account already has, as a browser test puts the same key into its virtual authenticator (Chromium's
   * WebAuthn domain cannot register through a page the site does not have yet). The account's user handle becomes
   * this one's. Base64url: the credential id, the COSE public key, the user handle.
   */
  passkey: z
    .object({
      id: z.string().regex(/^[A-Za-z0-9_-]{16,1024}$/),
      publicKey: z.string().regex(/^[A-Za-z0-9_-]{16,2048}$/),
      userHandle: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
      /** The signature counter the account has seen (a clone's authenticator then signs with a smaller one). */
      counter: z.number().int().min(0).max(0xffffffff).default(0),
    })
    .optional(),
  /**
   * Device credential digests the account already knows (docs/devices.md), as if each had completed a sign-in: a
   * login from one needs no device confirmation, and its wrong passwords have their own counter. Each is listed as
   * Chrome on Windows in Tokyo, first and last used now.
   */
  knownDevices: z.array(deviceDigestSchema).max(20).default([]),
  /**
   * false: the account is held to no devices contract, as on an API that does not have it (docs/devices.md, "A login
   * without context"): a login without `context` is neither confirmed, recorded nor noticed. For the tests of a site
   * whose DEVICE_CONFIRMATION is off.
   */
  deviceContract: z.boolean().default(true),
});

function describeUser(user: User) {
  return {
    username: user.username,
    email: user.email,
    emailVerified: user.emailVerified,
    confirmed: user.confirmed,
    mfa: user.mfaType === "totp" ? { totp: user.totpSecret } : user.mfaType === "sms" ? { sms: user.phone } : "none",
    forceChangePassword: user.forceChangePassword,
    transferInProgress: user.transferInProgress,
    failedAttempts: user.failedAttempts,
    lockedUntil: user.lockedUntil > 0 ? new Date(user.lockedUntil).toISOString() : null,
  };
}

/** Developer and test controls; the site forwards /__emulator/* only while the emulator is bound. */
export const devEndpoints = new Hono<EmulatorHono>();

devEndpoints.get("/__emulator/outbox", (c) => {
  const to = c.req.query("to");
  const items = c.var.services.outbox.list(to);
  const wantsHtml = (c.req.header("accept") ?? "").includes("text/html");
  return wantsHtml ? c.html(outboxPage(items, to)) : c.json(items);
});

devEndpoints.get("/__emulator/outbox.css", (c) =>
  c.body(outboxStyles, 200, { "Content-Type": "text/css; charset=utf-8" }),
);

devEndpoints.get("/__emulator/outbox.html", (c) => {
  const to = c.req.query("to");
  return c.html(outboxPage(c.var.services.outbox.list(to), to));
});

devEndpoints.post("/__emulator/users", async (c) => {
  const body = await jsonBody(c.req.raw, seedUserSchema);
  const { users } = c.var.services;
  if (users.byEmail(body.email) !== undefined) throw problems.alreadyRegistered();
  const username = body.username ?? crypto.randomUUID();
  if (users.byUsername(username) !== undefined) throw new Problem(409, "already_registered", "This username is taken.");
  users.insert({
    ...newUser(username, body.email, await hashPassword(body.password), c.var.now),
    emailVerified: body.emailVerified,
    confirmed: body.confirmed,
    mfaType: body.mfa === "none" ? "none" : "totp" in body.mfa ? "totp" : "sms",
    totpSecret: body.mfa !== "none" && "totp" in body.mfa ? body.mfa.totp : null,
    phone: body.mfa !== "none" && "sms" in body.mfa ? body.mfa.sms : null,
    forceChangePassword: body.forceChangePassword,
    transferInProgress: body.transferInProgress,
    deviceContract: body.deviceContract,
  });
  if (body.passkey) {
    const { passkeys } = c.var.services;
    passkeys.insert({
      id: body.passkey.id,
      username,
      userHandle: passkeys.userHandleOf(username, body.passkey.userHandle),
      publicKey: body.passkey.publicKey,
      counter: body.passkey.counter,
      transports: ["internal"],
      aaguid: "00000000-0000-0000-0000-000000000000",
      name: null,
      backedUp: false,
      createdAt: c.var.now,
      lastUsedAt: null,
      suspended: false,
    });
  }
  const seen = { browser: "Chrome", os: "Windows", country: "JP", region: "Tokyo" } as const;
  for (const digest of body.knownDevices)
    c.var.services.devices.bind(username, digest, seen, c.var.now, randomToken(12));
  return c.json({ username }, 201);
});

devEndpoints.get("/__emulator/users/:email", (c) => {
  const user = c.var.services.users.byLoginId(c.req.param("email"));
  if (user === undefined) throw new Problem(404, "not_found", "No such user.");
  return c.json(describeUser(user));
});

devEndpoints.post("/__emulator/reset", (c) => {
  resetState(c.var.services.sql);
  return c.json({ reset: true });
});

devEndpoints.get("/__emulator/faults", (c) => c.json(c.var.services.faults.list()));

devEndpoints.post("/__emulator/faults", async (c) => {
  const body = await jsonBody(c.req.raw, faultSchema);
  try {
    compilePattern(body.pathPattern);
  } catch {
    throw problems.invalidRequest("pathPattern is not a valid regular expression.");
  }
  return c.json({ id: c.var.services.faults.add(body) }, 201);
});

devEndpoints.post("/__emulator/faults/release", (c) => c.json({ released: releaseHeldCalls() }));

devEndpoints.delete("/__emulator/faults", (c) => {
  c.var.services.faults.clear();
  return c.json({ cleared: true });
});

function clockState(offsetMs: number, now: number) {
  return { offsetMs, now: new Date(now).toISOString() };
}

devEndpoints.get("/__emulator/clock", (c) => c.json(clockState(clockOffset(c.var.services.sql), c.var.now)));

devEndpoints.post("/__emulator/clock", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({
      offsetMs: z
        .number()
        .int()
        .min(-365 * 86_400_000)
        .max(10 * 365 * 86_400_000),
    }),
  );
  setClockOffset(c.var.services.sql, body.offsetMs);
  return c.json(clockState(body.offsetMs, Date.now() + body.offsetMs));
});

devEndpoints.get("/__emulator/clients", (c) =>
  c.json(
    [...oauthClients.values()].map((client) => ({
      ...client,
      redirectUris: registeredRedirectUris(client, c.var.site),
    })),
  ),
);
