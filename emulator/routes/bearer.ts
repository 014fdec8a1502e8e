import type { Context } from "hono";
import type { Authentication } from "../contract/authentication";
import { findClient, type OAuthClient } from "../contract/clients";
import { reauthenticationWindow } from "../contract/limits";
import { problems } from "../contract/problem";
import { accountScope } from "../contract/scopes";
import { verifyAccessToken } from "../crypto/tokens";
import type { User } from "../state/users";
import type { EmulatorHono } from "./context";

type EmulatorContext = Context<EmulatorHono>;

/** What a good bearer access token grants: whose account, through which client, with which scopes. */
export interface BearerGrant {
  user: User;
  client: OAuthClient;
  scopes: string[];
  /** The browser session whose login the token comes from (logout ends it). */
  browserSession: string;
  /** What that login achieved and when (the token's acr, amr and auth_time): the passkey calls' step-up rules. */
  login: Authentication;
  /** The digest of the device credential that login came from, if it named one (docs/devices.md). */
  device: string | undefined;
}

/**
 * The grant behind the request's bearer token, if it is a good access token: signed by the emulator's key and
 * unexpired by its clock, meant for the registered client it names, issued by this state and not revoked, and for
 * a user who still exists. Anything else is undefined, so every refusal looks the same (401).
 *
 * `expiredForMs` lets a token that expired at most that long ago still name its grant: logout uses it, since
 * ending a session grants nothing and a user may sign out long after the last access token ran out.
 */
export async function bearerGrant(c: EmulatorContext, expiredForMs = 0): Promise<BearerGrant | undefined> {
  const token = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (token === undefined) return undefined;
  const claims = await verifyAccessToken(await c.var.services.signingKey(), token, c.var.now, expiredForMs);
  if (claims === undefined) return undefined;
  // RFC 9068 §4: the audience must be checked; the emulator's tokens name their client in `aud` and `client_id`.
  const client = findClient(claims.clientId);
  if (client === undefined || !claims.audience.includes(client.id)) return undefined;
  // Missing: revoked (RFC 6749 §4.1.2, a reused code) or never issued. The record's expiry is the token's `exp`,
  // already checked above.
  const issued = c.var.services.tickets.find("access_token", claims.jti, c.var.now);
  if (issued.status === "missing") return undefined;
  const user = c.var.services.users.byUsername(claims.username);
  if (user === undefined) return undefined;
  const { browserSession } = issued.data;
  const device = c.var.services.tickets.dataOf("browser_session", browserSession)?.device;
  return { user, client, scopes: claims.scopes, browserSession, login: claims.login, device };
}

/** Every `/auth/v1/user/*` call: 401 `unauthorized` without a good token, 403 `insufficient_scope` without user.write. */
export async function requireAccount(c: EmulatorContext): Promise<BearerGrant> {
  const grant = await bearerGrant(c);
  if (grant === undefined) throw problems.unauthorized();
  if (!grant.scopes.includes(accountScope)) throw problems.insufficientScope(accountScope);
  return grant;
}

/**
 * Adding or deleting a passkey, and signing a device out or forgetting it, need a sign-in within the last 5 minutes
 * (the token's `auth_time`; a refresh does not renew it): else 403 `reauthentication_required`.
 */
export function requireRecentLogin(c: EmulatorContext, grant: BearerGrant): void {
  if (c.var.now - grant.login.authTime > reauthenticationWindow) throw problems.reauthenticationRequired();
}
