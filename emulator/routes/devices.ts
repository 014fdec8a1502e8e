import { type Context, Hono } from "hono";
import { deviceDigestSchema } from "../contract/loginContext";
import { noticeCatalogue } from "../contract/mailCatalogue";
import { problems } from "../contract/problem";
import type { Device } from "../state/devices";
import { grantWhereabouts, noticeFacts, sendNotice } from "./accountEvents";
import { type BearerGrant, requireAccount, requireRecentLogin } from "./bearer";
import type { EmulatorHono } from "./context";

type EmulatorContext = Context<EmulatorHono>;

// docs/devices.md: the account's sign-in history and devices, and signing devices out. Every call is a bearer call
// (`/auth/v1/user/*`); the three revoking ones need a sign-in within the last 5 minutes.

/**
 * The request's `Device-Digest` header: the digest of the device credential of the browser asking, so that the
 * answer can say which row is `this_device`. Never compared with anything but the account's own rows.
 */
function requestDigest(c: EmulatorContext, required: boolean): string | undefined {
  const header = c.req.header("device-digest");
  if (header === undefined && !required) return undefined;
  const digest = deviceDigestSchema.safeParse(header);
  if (!digest.success) throw problems.invalidRequest("The Device-Digest header must be a device credential's digest.");
  return digest.data;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

export const devices = new Hono<EmulatorHono>();

devices.get("/auth/v1/user/signins", async (c) => {
  const { user } = await requireAccount(c);
  const digest = requestDigest(c, false);
  const signins = c.var.services.signIns.listOf(user.username, c.var.now).map((signIn) => ({
    at: iso(signIn.at),
    method: signIn.method,
    browser: signIn.browser,
    os: signIn.os,
    country: signIn.country,
    region: signIn.region,
    service_id: signIn.serviceId,
    result: signIn.result,
    device_id: signIn.deviceId,
    this_device: digest !== undefined && signIn.digest === digest,
    // docs/operations.md: the operation a passkey approved (or was refused for); null for a sign-in.
    operation: signIn.operation,
  }));
  return c.json({ signins });
});

devices.get("/auth/v1/user/devices", async (c) => {
  const { user } = await requireAccount(c);
  const digest = requestDigest(c, false);
  const { devices: store, tickets } = c.var.services;
  const sessions = tickets.browserSessionsOf(user.username);
  const answered = store.listOf(user.username).map((device) => ({
    id: device.id,
    browser: device.browser,
    os: device.os,
    country: device.country,
    region: device.region,
    first_used_at: iso(device.firstUsedAt),
    last_used_at: iso(device.lastUsedAt),
    signed_in: sessions.some(
      (session) => session.device === device.digest && tickets.sessionSignedIn(session.id, c.var.now),
    ),
    this_device: device.digest === digest,
  }));
  return c.json({ devices: answered });
});

/**
 * Ends every browser session of the account whose login came from a device `revoked` names, with everything issued
 * through them (tickets.ts `endBrowserSessions`), and the logins accepted but not yet resumed.
 */
function signOut(c: EmulatorContext, grant: BearerGrant, revoked: (device: string | undefined) => boolean): void {
  const { tickets } = c.var.services;
  const { username } = grant.user;
  const ended = tickets.browserSessionsOf(username).filter((session) => revoked(session.device));
  tickets.endBrowserSessions(
    ended.map((session) => session.id),
    c.var.now,
  );
  tickets.revokePendingLogins(username, revoked, c.var.now);
}

/** The account's device by its public id; another account's is as unknown as none (404). */
function ownDevice(c: EmulatorContext, grant: BearerGrant): Device {
  const device = c.var.services.devices.ofAccount(grant.user.username, c.req.param("id") ?? "");
  if (device === undefined) throw problems.notFound("device");
  return device;
}

function noticeSignOut(
  c: EmulatorContext,
  grant: BearerGrant,
  signedOut: Parameters<typeof noticeCatalogue.deviceSignedOut>[1],
): void {
  const facts = noticeFacts(c, grant.client.id, { change: "signed_in" }, grantWhereabouts(c, grant));
  sendNotice(c, grant.user.email, noticeCatalogue.deviceSignedOut(facts, signedOut));
}

devices.post("/auth/v1/user/devices/signout-others", async (c) => {
  const grant = await requireAccount(c);
  // Checked before anything else, so that a stale sign-in learns nothing (as deleting a passkey).
  requireRecentLogin(c, grant);
  const digest = requestDigest(c, true);
  // Every other device, and the sessions of logins that named none: only the asking browser stays signed in. The
  // devices signed out are forgotten too, so that a relayed login cannot come back on them without a new code.
  signOut(c, grant, (device) => device !== digest);
  noticeSignOut(c, grant, { allOthers: true });
  const { devices: store } = c.var.services;
  for (const device of store.listOf(grant.user.username))
    if (device.digest !== digest) store.forget(grant.user.username, device.id);
  return c.body(null, 204);
});

/**
 * Signing a device out forgets it, as deleting it does: its next sign-in is a new device's, confirmed by a mailed
 * code. Noticed first: the asking browser may be the one forgotten, and the notice names it.
 */
async function signOutAndForget(c: EmulatorContext): Promise<Response> {
  const grant = await requireAccount(c);
  requireRecentLogin(c, grant);
  const device = ownDevice(c, grant);
  signOut(c, grant, (digest) => digest === device.digest);
  noticeSignOut(c, grant, { device });
  c.var.services.devices.forget(grant.user.username, device.id);
  return c.body(null, 204);
}

devices.post("/auth/v1/user/devices/:id/signout", signOutAndForget);
devices.delete("/auth/v1/user/devices/:id", signOutAndForget);
