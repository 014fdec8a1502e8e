import { type Context, Hono } from "hono";
import { z } from "zod";
import { type Acr, loginMethods } from "../contract/authentication";
import { lifetimes } from "../contract/lifetimes";
import { sendLimits } from "../contract/limits";
import { loginContextSchema, whereaboutsOf } from "../contract/loginContext";
import { mailCatalogue, type NoticeFacts, noticeCatalogue } from "../contract/mailCatalogue";
import { bindingChallenge, operationType } from "../contract/operations";
import {
  ceremonyTimeoutMs,
  challengeBytes,
  isTransport,
  maxPasskeyNameLength,
  publicKeyAlgorithms,
  rpName,
  userHandleBytes,
} from "../contract/passkeyPolicy";
import { Problem, problems } from "../contract/problem";
import { randomToken, sixDigitCode } from "../crypto/randomValues";
import { type Ceremony, counterWentBack, verifyAssertion, verifyRegistration } from "../crypto/webauthn";
import type { Passkey } from "../state/passkeys";
import { redeemCode, requireLive } from "../state/tickets";
import type { User } from "../state/users";
import {
  completedApproval,
  completedSignIn,
  grantWhereabouts,
  noticeFacts,
  recordSignIn,
  sendNotice,
} from "./accountEvents";
import { acceptLogin } from "./authorizationFlow";
import { type BearerGrant, requireAccount, requireRecentLogin } from "./bearer";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

/** docs/passkeys.md: the contract's base path. */
const base = "/auth/v1/passkeys";

const base64urlText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, "must be base64url");
// WebAuthn L3 §4: a credential id is at most 1023 bytes, 1364 base64url characters.
const credentialId = base64urlText(1364);
const session = z.string().min(1).max(256);
const loginChallenge = z.string().min(1).max(4096);
const nameText = z
  .string()
  .trim()
  .max(maxPasskeyNameLength)
  .regex(/^\P{Cc}*$/u, "name must not hold control characters");

/** The `PublicKeyCredential` JSON the browser gives (WebAuthn L3 §5.1.8 `toJSON()`), at the body's top level. */
const publicKeyCredential = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).nullish(),
};

const attestationResultSchema = z.object({
  session,
  name: nameText.optional(),
  ...publicKeyCredential,
  response: z.object({
    clientDataJSON: base64urlText(8192),
    attestationObject: base64urlText(65_536),
    transports: z.array(z.string().max(32)).max(16).default([]),
  }),
});

const assertionResultSchema = z.object({
  login_challenge: loginChallenge,
  session,
  remember: z.boolean().optional(),
  device_id: z.string().max(64).optional(),
  context: loginContextSchema.optional(),
  ...publicKeyCredential,
  response: z.object({
    clientDataJSON: base64urlText(8192),
    authenticatorData: base64urlText(8192),
    signature: base64urlText(2048),
    userHandle: base64urlText(88).nullish(),
  }),
});

/** The FIDO2 transport binding's `ServerResponse` on success, with the call's own fields. */
function ok(c: EmulatorContext, fields: Record<string, unknown>, status: 200 | 201 = 200): Response {
  return c.json({ status: "ok", errorMessage: "", ...fields }, status);
}

/** The relying party is the site itself: its exact origin, and its host as the RP ID (docs/passkeys.md). */
function ceremonyAt(c: EmulatorContext, challenge: string): Ceremony {
  return { challenge, origin: c.var.site, rpId: new URL(c.var.site).hostname };
}

/**
 * Who is adding a passkey, on what authority: the user of a bearer token (its `grant`), or the user of a password
 * login's passkey enrolment `ticket`. `acr` is what the login behind either achieved.
 */
type Registrant = { user: User; acr: Acr; emailProven?: boolean } & (
  | { grant: BearerGrant; ticket?: undefined }
  | { grant?: undefined; ticket: string; clientId: string | undefined; device: string | undefined }
);

/**
 * The registration calls' authority (docs/passkeys.md, "Enrolment after a password sign-in"): the bearer token, or
 * `Authorization: PasskeyEnrolment <ticket>`, "a single-use ticket for this user and this login (10 minutes), which
 * `/registration/code`, `/attestation/options` and `/attestation/result` accept instead of the bearer". A ticket is
 * no token: it has no scopes, and every other call refuses it (401, as `requireAccount` knows only `Bearer`).
 */
async function registrant(c: EmulatorContext): Promise<Registrant> {
  const ticket = /^PasskeyEnrolment\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (ticket === undefined) {
    const grant = await requireAccount(c);
    return { user: grant.user, acr: grant.login.acr, grant };
  }
  const { tickets, users } = c.var.services;
  const found = tickets.find("passkey_enrolment", ticket, c.var.now);
  const user = found.status === "valid" ? users.byUsername(found.data.username) : undefined;
  // An unknown, expired or used ticket answers exactly as a bad bearer token.
  if (found.status !== "valid" || user === undefined) throw problems.unauthorized();
  const { acr, emailProven, clientId, device } = found.data;
  return { user, acr, emailProven: emailProven === true, ticket, clientId, device };
}

/**
 * Who added or removed a passkey, as the notice names it (docs/devices.md, "Notices"): the brand and the device of
 * the login behind the bearer token, or behind the enrolment ticket, as other changes.
 */
function passkeyChangeFacts(c: EmulatorContext, by: BearerGrant | Registrant): NoticeFacts {
  const how = { change: "signed_in" } as const;
  if ("client" in by) return noticeFacts(c, by.client.id, how, grantWhereabouts(c, by));
  if (by.grant !== undefined) return passkeyChangeFacts(c, by.grant);
  const device = by.device === undefined ? undefined : c.var.services.devices.ofDigest(by.user.username, by.device);
  return noticeFacts(c, by.clientId, how, device);
}

function describePasskey(passkey: Passkey) {
  return {
    id: passkey.id,
    name: passkey.name,
    aaguid: passkey.aaguid,
    created_at: new Date(passkey.createdAt).toISOString(),
    last_used_at: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt).toISOString(),
    backed_up: passkey.backedUp,
    transports: passkey.transports,
    suspended: passkey.suspended,
  };
}

export const passkeys = new Hono<EmulatorHono>();

// Every failure of these calls is a ServerResponse too, with `type` as the reason the site maps to its message.
passkeys.onError((error) => {
  if (error instanceof Problem) return error.toServerResponse();
  throw error;
});

passkeys.post(`${base}/registration/code`, async (c) => {
  const { user } = await registrant(c);
  const { tickets, outbox, sendLog } = c.var.services;
  const send = sendLog.take("passkey_registration_code", user.username, sendLimits.passkeyRegistrationCode, c.var.now);
  // The last code sent stays valid when a further one is refused.
  if (!send.allowed)
    throw problems.tooManyRequests(
      "Too many passkey registration codes for this account; retry later.",
      send.retryAfterMs,
    );
  const code = sixDigitCode();
  tickets.issue("passkey_registration_code", user.username, { code }, c.var.now + lifetimes.passkeyRegistrationCode);
  outbox.send("email", user.email, mailCatalogue.passkeyRegistrationCode(code), c.var.now, { code });
  return ok(c, {}, 201);
});

passkeys.post(`${base}/attestation/options`, async (c) => {
  const { user, acr, emailProven, grant } = await registrant(c);
  const body = await jsonBody(c.req.raw, z.object({ email_code: z.string().max(32).optional() }));
  const { tickets, passkeys: store } = c.var.services;
  // Checked before the code, so that a stale sign-in does not use the code up. A ticket's own 10 minutes from its
  // login stand for the rule.
  if (grant !== undefined) requireRecentLogin(c, grant);
  // A password sign-in (with a TOTP or SMS code too) can be relayed by a phishing site: a passkey registered after
  // one must also prove the account's mailbox. A passkey sign-in cannot be relayed. A ticket's login is always a
  // password one: "The mailed code stays required: a phished password and code must not be enough to plant a
  // passkey." A sign-up's ticket is the exception: the sign-up's own mailed code proved the mailbox minutes ago, in
  // the browser that holds the ticket.
  if (acr !== "phr" && !emailProven) {
    if (body.email_code === undefined) throw problems.emailCodeRequired();
    redeemCode(tickets, "passkey_registration_code", user.username, body.email_code, c.var.now, 410);
  }
  const userHandle = store.userHandleOf(user.username, randomToken(userHandleBytes));
  const ceremony = ceremonyAt(c, randomToken(challengeBytes));
  const id = tickets.issue(
    "passkey_registration",
    randomToken(),
    { username: user.username, challenge: ceremony.challenge, userHandle },
    c.var.now + lifetimes.passkeyCeremony,
  );
  return ok(c, {
    session: id,
    rp: { id: ceremony.rpId, name: rpName },
    user: { id: userHandle, name: user.email, displayName: user.email },
    challenge: ceremony.challenge,
    pubKeyCredParams: publicKeyAlgorithms.map((alg) => ({ type: "public-key", alg })),
    timeout: ceremonyTimeoutMs,
    excludeCredentials: store
      .listOf(user.username)
      .map((passkey) => ({ type: "public-key", id: passkey.id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
    attestation: "none",
    extensions: { credProps: true },
  });
});

passkeys.post(`${base}/attestation/result`, async (c) => {
  const by = await registrant(c);
  const { user, ticket } = by;
  const body = await jsonBody(c.req.raw, attestationResultSchema);
  const { tickets, passkeys: store } = c.var.services;
  const now = c.var.now;
  const found = tickets.find("passkey_registration", body.session, now);
  // Another user's session is as unknown to this one as a session never issued, and stays its owner's.
  if (found.status !== "valid" || found.data.username !== user.username) throw problems.ceremonyExpired();
  // A ceremony's challenge is good for one result, right or wrong.
  tickets.consume("passkey_registration", body.session, now);
  const transports = body.response.transports.filter(isTransport);
  const verdict = await verifyRegistration(
    {
      id: body.id,
      rawId: body.rawId,
      type: body.type,
      response: {
        clientDataJSON: body.response.clientDataJSON,
        attestationObject: body.response.attestationObject,
        transports,
      },
      clientExtensionResults: body.clientExtensionResults,
      authenticatorAttachment: body.authenticatorAttachment ?? undefined,
    },
    ceremonyAt(c, found.data.challenge),
    publicKeyAlgorithms,
  );
  if (!verdict.verified) throw problems.invalidCredential(400, verdict.reason);
  const credential = verdict.value;
  // The library checks only that id and rawId agree; the id that counts is the one the authenticator signed.
  if (credential.id !== body.id)
    throw problems.invalidCredential(400, "The credential id is not the one in the authenticator data.");
  if (store.byId(credential.id) !== undefined) throw problems.credentialExists();
  const passkey: Passkey = {
    id: credential.id,
    username: user.username,
    userHandle: found.data.userHandle,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports,
    aaguid: credential.aaguid,
    name: body.name || null,
    backedUp: credential.backedUp,
    createdAt: now,
    lastUsedAt: null,
    suspended: false,
  };
  // One passkey per ticket. Checked again after the verification's await: another result under the same ticket
  // may have been let in meanwhile. A failed result left it alone (the ceremony is spent): the user may try again.
  if (ticket !== undefined) {
    if (tickets.find("passkey_enrolment", ticket, now).status !== "valid") throw problems.unauthorized();
    tickets.consume("passkey_enrolment", ticket, now);
  }
  store.insert(passkey);
  sendNotice(c, user.email, noticeCatalogue.passkeyAdded(passkeyChangeFacts(c, by), passkey.name));
  return ok(c, { credential: describePasskey(passkey) }, 201);
});

passkeys.post(`${base}/assertion/options`, async (c) => {
  const body = await jsonBody(c.req.raw, z.object({ login_challenge: loginChallenge }));
  const { tickets } = c.var.services;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, c.var.now, "login challenge");
  // docs/operations.md, "The binding": an operation's login signs a challenge derived from what it approves, so the
  // assertion covers exactly the details the customer was shown; a sign-in's is random.
  const challenge =
    request.operation === undefined ? randomToken(challengeBytes) : await bindingChallenge(request.operation);
  const ceremony = ceremonyAt(c, challenge);
  const id = tickets.issue(
    "passkey_assertion",
    randomToken(),
    { loginChallenge: body.login_challenge, challenge: ceremony.challenge },
    c.var.now + lifetimes.passkeyCeremony,
  );
  // Discoverable credentials: the same options for everyone, so they tell nothing about accounts or passkeys.
  return ok(c, {
    session: id,
    challenge: ceremony.challenge,
    timeout: ceremonyTimeoutMs,
    rpId: ceremony.rpId,
    allowCredentials: [],
    userVerification: "required",
  });
});

passkeys.post(`${base}/assertion/result`, async (c) => {
  const body = await jsonBody(c.req.raw, assertionResultSchema);
  const { tickets, passkeys: store, users } = c.var.services;
  const now = c.var.now;
  const request = requireLive(tickets, "login_challenge", body.login_challenge, now, "login challenge");
  const found = tickets.find("passkey_assertion", body.session, now);
  if (found.status !== "valid" || found.data.loginChallenge !== body.login_challenge) throw problems.ceremonyExpired();
  tickets.consume("passkey_assertion", body.session, now);
  const { operation } = request;
  // A failed assertion counts against its login challenge, which dies at the cap (contract/limits.ts). One that
  // names an account's own passkey (its id and user handle) and was to approve an operation goes into that
  // account's history as refused (docs/operations.md).
  const failed = (problem: Problem = problems.invalidCredential(401), owner?: string): Problem => {
    tickets.recordWrongCode("login_challenge", body.login_challenge);
    const account = owner === undefined ? undefined : users.byUsername(owner);
    if (operation !== undefined && account !== undefined)
      recordSignIn(c, account, request.clientId, "passkey", body.context, "refused", operationType(operation));
    return problem;
  };
  // Found by its id, and the user handle the authenticator keeps with it must be the account's: an unknown
  // credential and a wrong handle answer alike.
  const passkey = store.byId(body.id);
  if (passkey === undefined || body.response.userHandle !== passkey.userHandle) throw failed();
  // docs/operations.md, "The binding": recomputed from the login's stored operation, never taken from the ceremony
  // or the request, so an assertion over any other details (or a random challenge) does not verify.
  const expectedChallenge = operation === undefined ? found.data.challenge : await bindingChallenge(operation);
  const verdict = await verifyAssertion(
    {
      id: body.id,
      rawId: body.rawId,
      type: body.type,
      response: {
        clientDataJSON: body.response.clientDataJSON,
        authenticatorData: body.response.authenticatorData,
        signature: body.response.signature,
        userHandle: body.response.userHandle ?? undefined,
      },
      clientExtensionResults: body.clientExtensionResults,
      authenticatorAttachment: body.authenticatorAttachment ?? undefined,
    },
    ceremonyAt(c, expectedChallenge),
    passkey,
  );
  if (!verdict.verified) throw failed(undefined, passkey.username);
  // Past the signature, only the key's holder hears that the passkey is suspended; they hear it every time.
  if (passkey.suspended) throw failed(problems.clonedAuthenticator(), passkey.username);
  if (counterWentBack(passkey.counter, verdict.value.counter)) {
    store.suspend(passkey.id);
    const owner = users.byUsername(passkey.username);
    // Noticed as the attempt that gave the copy away: its login challenge's brand, and its device and place when the
    // call carried `context`.
    const whereabouts = body.context === undefined ? undefined : whereaboutsOf(body.context);
    const facts = noticeFacts(c, request.clientId, { signIn: "passkey" }, whereabouts);
    if (owner !== undefined) sendNotice(c, owner.email, noticeCatalogue.passkeySuspended(facts, passkey.name));
    throw failed(problems.clonedAuthenticator(), passkey.username);
  }
  const user = users.byUsername(passkey.username);
  if (user === undefined || !user.confirmed) throw failed();
  // The product §8 transfer notice is about the account, whatever the way in (as POST /auth/v1/login).
  if (user.transferInProgress) throw problems.rejectLogin();
  store.recordUse(passkey.id, verdict.value.counter, verdict.value.backedUp, now);
  // docs/devices.md: the passkey proves the device, so it is never asked to confirm it, and becomes known.
  if (operation === undefined) {
    completedSignIn(c, user, request.clientId, "passkey", body.context, { notice: true });
  } else completedApproval(c, user, request.clientId, "passkey", body.context, operation);
  const redirectTo = acceptLogin(
    c,
    body.login_challenge,
    user.username,
    body.remember ?? false,
    loginMethods.passkey,
    body.context?.device,
  );
  return ok(c, { redirect_to: redirectTo }, 201);
});

function listPasskeys(c: EmulatorContext, username: string): Response {
  return ok(c, { credentials: c.var.services.passkeys.listOf(username).map(describePasskey) });
}

passkeys.get(base, async (c) => listPasskeys(c, (await requireAccount(c)).user.username));
passkeys.get(`${base}/`, async (c) => listPasskeys(c, (await requireAccount(c)).user.username));

passkeys.patch(`${base}/:id`, async (c) => {
  const { user } = await requireAccount(c);
  const body = await jsonBody(c.req.raw, z.object({ name: nameText.min(1) }));
  const { passkeys: store } = c.var.services;
  const passkey = store.ofAccount(user.username, c.req.param("id"));
  if (passkey === undefined) throw problems.notFound("passkey");
  store.rename(passkey.id, body.name);
  return ok(c, { credential: describePasskey({ ...passkey, name: body.name }) });
});

passkeys.delete(`${base}/:id`, async (c) => {
  const grant = await requireAccount(c);
  requireRecentLogin(c, grant);
  const { passkeys: store } = c.var.services;
  const passkey = store.ofAccount(grant.user.username, c.req.param("id"));
  if (passkey === undefined) throw problems.notFound("passkey");
  store.remove(passkey.id);
  sendNotice(c, grant.user.email, noticeCatalogue.passkeyRemoved(passkeyChangeFacts(c, grant), passkey.name));
  return ok(c, {});
});
