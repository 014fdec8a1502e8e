import type { Context } from "hono";
import type { AuthorizationDetailsType } from "../../forms/authorizationDetails";
import type { SignInMethod } from "../contract/authentication";
import { findClient, noticeBrand } from "../contract/clients";
import { asksDeviceConfirmation } from "../contract/devicePolicy";
import { type LoginContext, type Whereabouts, whereaboutsOf } from "../contract/loginContext";
import { type Message, type NoticeFacts, type NoticeMethod, noticeCatalogue } from "../contract/mailCatalogue";
import { operationType, type PushedOperation } from "../contract/operations";
import { randomToken } from "../crypto/randomValues";
import type { LockStarted } from "../state/passwordLockout";
import type { SignInResult } from "../state/signIns";
import type { User } from "../state/users";
import type { BearerGrant } from "./bearer";
import type { EmulatorHono } from "./context";

type EmulatorContext = Context<EmulatorHono>;

// What the API does around sign-ins and account changes (docs/devices.md): the device policy, the sign-in history,
// the devices an account knows, and the notices. A login without the site's `context` names no device: on an
// account held to the contract (every account but one seeded without it) it is a new device's, confirmed by a
// mailed code, recorded and noticed as 「不明な端末」; on any other it is neither, and binds no device.

/** What a login without `context` is seen as: no device, no place. */
const unknownWhereabouts: Whereabouts = { browser: "その他", os: "その他", country: null, region: null };

/** The device and place a sign-in of `user` is recorded with; undefined when it is not recorded at all. */
export function signInWhereabouts(user: User, context: LoginContext | undefined): Whereabouts | undefined {
  if (context !== undefined) return whereaboutsOf(context);
  return user.deviceContract ? unknownWhereabouts : undefined;
}

/** What a notice of a sign-in names: its context's device and place, or 「不明な端末」 and 「不明」 for none. */
export function noticedWhereabouts(context: LoginContext | undefined): Whereabouts | undefined {
  return context && whereaboutsOf(context);
}

/** The facts a notice names, for a change or a sign-in through `clientId`'s brand. */
export function noticeFacts(
  c: EmulatorContext,
  clientId: string | undefined,
  how: NoticeMethod,
  whereabouts: Whereabouts | undefined,
): NoticeFacts {
  return { brand: noticeBrand(clientId), at: c.var.now, how, whereabouts };
}

export function sendNotice(c: EmulatorContext, to: string, message: Message, extra: { code?: string } = {}): void {
  c.var.services.outbox.send("email", to, message, c.var.now, extra);
}

/** The device a bearer token's login came from, as the account knows it; undefined when it named none. */
export function grantWhereabouts(c: EmulatorContext, grant: BearerGrant): Whereabouts | undefined {
  if (grant.device === undefined) return undefined;
  return c.var.services.devices.ofDigest(grant.user.username, grant.device);
}

/**
 * docs/devices.md, "The policy": whether this password login must confirm its device with a mailed code. A login
 * without `context` on an account held to the contract names no device, so it is a new device's.
 */
export function needsDeviceConfirmation(c: EmulatorContext, user: User, context: LoginContext | undefined): boolean {
  if (context === undefined) return user.deviceContract;
  const { devices, signIns } = c.var.services;
  const { username } = user;
  const recent = signIns.recentSuccesses(username, context.country, c.var.now);
  return asksDeviceConfirmation(context, {
    deviceKnown: context.device !== undefined && devices.ofDigest(username, context.device) !== undefined,
    signedInRecently: recent.any,
    countrySeen: recent.fromCountry,
  });
}

/**
 * A sign-in, accepted or refused (or an operation's login cancelled), goes into the account's history (when it is
 * recorded at all, above); `operation`: the type of the operation it approved, was refused for or cancelled
 * (docs/operations.md), null for a sign-in.
 */
export function recordSignIn(
  c: EmulatorContext,
  user: User,
  clientId: string,
  method: SignInMethod,
  context: LoginContext | undefined,
  result: SignInResult,
  operation: AuthorizationDetailsType | null = null,
): void {
  const seen = signInWhereabouts(user, context);
  if (seen === undefined) return;
  const { devices, signIns } = c.var.services;
  const digest = context?.device;
  const device = digest === undefined ? undefined : devices.ofDigest(user.username, digest);
  signIns.record({
    username: user.username,
    at: c.var.now,
    method,
    ...seen,
    serviceId: findClient(clientId)?.serviceId ?? null,
    result,
    deviceId: device?.id ?? null,
    digest: digest ?? null,
    operation,
  });
}

/**
 * A sign-in completed: its device becomes known to the account (or its last use moves on), the history records it
 * (with the `operation` it approved, if any), and, unless `notice` is false (a sign-up, which the customer has just
 * done; an approval, which has a notice of its own), the account is told.
 */
export function completedSignIn(
  c: EmulatorContext,
  user: User,
  clientId: string,
  method: SignInMethod,
  context: LoginContext | undefined,
  options: { notice: boolean; deviceConfirmed?: boolean; operation?: AuthorizationDetailsType },
): void {
  const seen = signInWhereabouts(user, context);
  if (seen === undefined) return;
  if (context?.device !== undefined)
    c.var.services.devices.bind(user.username, context.device, seen, c.var.now, randomToken(12));
  recordSignIn(c, user, clientId, method, context, "success", options.operation ?? null);
  if (!options.notice) return;
  const how = { signIn: method, deviceConfirmed: options.deviceConfirmed ?? false };
  sendNotice(c, user.email, noticeCatalogue.signIn(noticeFacts(c, clientId, how, noticedWhereabouts(context))));
}

/**
 * docs/operations.md, "Notice and history": an operation approved (by a passkey, or the brand's alternative): recorded
 * as the approval it is, and the account told what was approved instead of being told of a sign-in.
 */
export function completedApproval(
  c: EmulatorContext,
  user: User,
  clientId: string,
  method: SignInMethod,
  context: LoginContext | undefined,
  operation: PushedOperation,
): void {
  completedSignIn(c, user, clientId, method, context, { notice: false, operation: operationType(operation) });
  const [detail] = operation.details;
  const facts = noticeFacts(c, clientId, { signIn: method }, noticedWhereabouts(context));
  if (detail !== undefined) sendNotice(c, user.email, noticeCatalogue.operationApproved(facts, detail));
}

/** A wrong password has just locked a login's device (or every unknown one) out: the account is told. */
export function noticeLock(
  c: EmulatorContext,
  user: User,
  clientId: string | undefined,
  lock: LockStarted,
  whereabouts: Whereabouts | undefined,
): void {
  const facts = noticeFacts(c, clientId, { signIn: "password" }, whereabouts);
  sendNotice(c, user.email, noticeCatalogue.accountLocked(facts, lock));
}

/** `t***@example.com`: enough for the customer to recognise the address, not enough to learn it. */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf("@");
  return `${address.slice(0, Math.min(1, at))}***${address.slice(at)}`;
}
