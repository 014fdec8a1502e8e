import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Authentication, LoginMethod } from "../contract/authentication";
import { type AuthorizationRequest, resumeUrl } from "../contract/authorizationRequest";
import { findClient } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { randomToken } from "../crypto/randomValues";
import type { EmulatorHono } from "./context";

type EmulatorContext = Context<EmulatorHono>;

/** Who is signed in, in which browser session, and what their login achieved (Hydra's acr, amr, auth_time). */
export interface SignedIn {
  username: string;
  browserSession: string;
  login: Authentication;
}

/** Hydra's name for its login session cookie; scoped to /oauth2 so only the authorization endpoint sees it. */
export const sessionCookieName = "oauth2_authentication_session";

export function redirect(c: EmulatorContext, location: string): Response {
  c.header("cache-control", "no-store");
  return c.redirect(location, 302);
}

/** RFC 6749 §4.1.2.1: once redirect_uri is known good, errors go back to it with the state. */
export function redirectWithError(
  c: EmulatorContext,
  redirectUri: string,
  state: string | undefined,
  error: string,
  description: string,
): Response {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== undefined) url.searchParams.set("state", state);
  return redirect(c, url.toString());
}

/** No session (or prompt=login): hand the browser to the site's login URL with a fresh challenge. */
export function redirectToLogin(c: EmulatorContext, request: AuthorizationRequest): Response {
  const { tickets } = c.var.services;
  const challenge = tickets.issue("login_challenge", randomToken(), request, c.var.now + lifetimes.loginChallenge);
  const url = new URL("/", c.var.site);
  url.searchParams.set("login_challenge", challenge);
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("view", request.view);
  return redirect(c, url.toString());
}

/**
 * Accepting a login uses the challenge up and answers the URL the browser follows to go on. As Hydra's accept body,
 * it says how the user signed in (`acr`, `amr`); `auth_time` is now. `device` is the digest of the device credential
 * the login came from (docs/devices.md), which the browser session keeps, so that signing the device out ends it.
 */
export function acceptLogin(
  c: EmulatorContext,
  challenge: string,
  username: string,
  remember: boolean,
  method: LoginMethod,
  device: string | undefined,
): string {
  const { tickets } = c.var.services;
  const found = tickets.find("login_challenge", challenge, c.var.now);
  if (found.status !== "valid") throw new Error("acceptLogin needs a live challenge");
  tickets.consume("login_challenge", challenge, c.var.now);
  const login: Authentication = { acr: method.acr, amr: method.amr, authTime: c.var.now };
  const verifier = tickets.issue(
    "login_verifier",
    randomToken(),
    { request: found.data, username, remember, loginChallenge: challenge, login, device },
    c.var.now + lifetimes.verifier,
  );
  return resumeUrl(c.var.site, found.data, { login_verifier: verifier });
}

export function acceptConsent(c: EmulatorContext, challenge: string, grantedScope: string): string {
  const { tickets } = c.var.services;
  const found = tickets.find("consent_challenge", challenge, c.var.now);
  if (found.status !== "valid") throw new Error("acceptConsent needs a live challenge");
  tickets.consume("consent_challenge", challenge, c.var.now);
  const verifier = tickets.issue(
    "consent_verifier",
    randomToken(),
    { ...found.data, grantedScope },
    c.var.now + lifetimes.verifier,
  );
  return resumeUrl(c.var.site, found.data.request, { consent_verifier: verifier });
}

/**
 * Sets the session cookie of a fresh browser session; answers who is signed in by it. The session remembers what
 * its login achieved, so a later authorization that skips the login claims exactly that (docs/passkeys.md), and the
 * device it came from (docs/devices.md).
 */
export function startBrowserSession(
  c: EmulatorContext,
  username: string,
  remember: boolean,
  login: Authentication,
  device: string | undefined,
): SignedIn {
  const id = c.var.services.tickets.issue(
    "browser_session",
    randomToken(),
    { username, login, device },
    c.var.now + lifetimes.browserSession,
  );
  setCookie(c, sessionCookieName, id, {
    path: "/oauth2",
    httpOnly: true,
    sameSite: "Lax",
    secure: c.var.site.startsWith("https:"),
    ...(remember ? { maxAge: lifetimes.browserSession / 1000 } : {}),
  });
  return { username, browserSession: id, login };
}

/** This browser's session, if its cookie names a live session whose user still exists. */
export function browserSession(c: EmulatorContext): SignedIn | undefined {
  const id = getCookie(c, sessionCookieName);
  if (id === undefined) return undefined;
  const found = c.var.services.tickets.find("browser_session", id, c.var.now);
  if (found.status !== "valid") return undefined;
  const { username, login } = found.data;
  return c.var.services.users.byUsername(username) ? { username, browserSession: id, login } : undefined;
}

/**
 * Logout: the session of the cookie, and the one a bearer token came from, end, so the next /oauth2/auth asks
 * for a login; the refresh tokens of the logins made in them are revoked; the cookie is cleared.
 */
export function endBrowserSession(c: EmulatorContext, fromToken: string | undefined): void {
  const { tickets } = c.var.services;
  for (const id of new Set([getCookie(c, sessionCookieName), fromToken])) {
    if (id === undefined) continue;
    tickets.consume("browser_session", id, c.var.now);
    tickets.revokeRefreshTokensOfSession(id, c.var.now);
  }
  deleteCookie(c, sessionCookieName, { path: "/oauth2", secure: c.var.site.startsWith("https:") });
}

/**
 * After login: the partner-branded client asks consent first; every other client gets its code. A request
 * for no scope at all (the site's own authorization for the partner service, product §6) has nothing to
 * consent to, so the user is asked once, when the app's own request names its scopes.
 */
export function continueAuthorization(
  c: EmulatorContext,
  request: AuthorizationRequest,
  signedIn: SignedIn,
  loginChallenge?: string,
): Response {
  const client = findClient(request.clientId);
  if (client === undefined) throw new Error("continueAuthorization needs a known client");
  if (!client.consentRequired || request.scope.trim() === "")
    return redirectWithCode(c, request, signedIn, request.scope);
  const challenge = c.var.services.tickets.issue(
    "consent_challenge",
    randomToken(),
    { request, ...signedIn, loginChallenge },
    c.var.now + lifetimes.consentChallenge,
  );
  const url = new URL(`/${client.serviceId}/consent`, c.var.site);
  url.searchParams.set("consent_challenge", challenge);
  url.searchParams.set("client_id", client.id);
  url.searchParams.set("scope", request.scope);
  return redirect(c, url.toString());
}

/**
 * The code of an authorization. A pushed operation's (docs/operations.md) carries its details to the token response,
 * and only a login made for it gets here, by a method its brand allows (its `acr_values`): the request always asks a
 * login (`redirectToLogin`), and every other way to accept that login refuses it (`operation_requires_passkey`).
 * Checked again here all the same.
 */
export function redirectWithCode(
  c: EmulatorContext,
  request: AuthorizationRequest,
  signedIn: SignedIn,
  scope: string,
): Response {
  if (request.operation !== undefined && !(request.acrValues ?? "").split(" ").includes(signedIn.login.acr))
    throw new Error("an operation's code needs the login made for it, by a method its brand allows");
  const code = c.var.services.tickets.issue(
    "authorization_code",
    randomToken(),
    {
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope,
      nonce: request.nonce,
      ...signedIn,
      authorizationDetails: request.operation?.details,
    },
    c.var.now + lifetimes.authorizationCode,
  );
  const url = new URL(request.redirectUri);
  url.searchParams.set("code", code);
  url.searchParams.set("state", request.state);
  url.searchParams.set("scope", scope);
  return redirect(c, url.toString());
}
