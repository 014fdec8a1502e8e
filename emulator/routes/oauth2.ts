import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AuthorizationDetails } from "../../forms/authorizationDetails";
import { type Authentication, acrValuesSupported } from "../contract/authentication";
import { authorizationQuerySchema, needsFreshLogin, toAuthorizationRequest } from "../contract/authorizationRequest";
import { findClient, registeredRedirectUris } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { operationTypes } from "../contract/operations";
import { sha256Base64url } from "../crypto/digest";
import { randomToken } from "../crypto/randomValues";
import { accessTokenLifetimeSeconds, newTokenId, signAccessToken, signIdToken } from "../crypto/tokens";
import { sameCode, type TicketKinds } from "../state/tickets";
import {
  browserSession,
  continueAuthorization,
  redirectToLogin,
  redirectWithCode,
  redirectWithError,
  startBrowserSession,
} from "./authorizationFlow";
import type { EmulatorHono } from "./context";
import { authorizePushed, parMethodNotAllowed, pushAuthorizationRequest } from "./pushedRequests";
import { describeIssues, formText, isFormBody, queryParams } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

export const oauth2 = new Hono<EmulatorHono>();

oauth2.get("/.well-known/openid-configuration", (c) => {
  const site = c.var.site;
  return c.json({
    issuer: site,
    authorization_endpoint: `${site}/oauth2/auth`,
    token_endpoint: `${site}/oauth2/token`,
    jwks_uri: `${site}/.well-known/jwks.json`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["ES256"],
    scopes_supported: ["openid", "offline", "offline_access", "user.write"],
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr"],
    acr_values_supported: acrValuesSupported,
    // docs/operations.md: operations are pushed (RFC 9126 §5) as RFC 9396 authorization_details (§10); only they are.
    pushed_authorization_request_endpoint: `${site}/oauth2/par`,
    require_pushed_authorization_requests: false,
    authorization_details_types_supported: operationTypes,
  });
});

oauth2.get("/.well-known/jwks.json", async (c) => {
  const key = await c.var.services.signingKey();
  return c.json({ keys: [key.publicJwk] });
});

const verifierSchema = z.string().min(1).max(256);

oauth2.get("/oauth2/auth", (c) => {
  const query = queryParams(c.req.raw);
  const client = findClient(query.client_id);
  if (client === undefined) return c.json({ error: "invalid_client", error_description: "Unknown client_id." }, 400);
  if (query.request_uri !== undefined) return authorizePushed(c, client, query.request_uri, query);
  const redirectUri = query.redirect_uri;
  if (redirectUri === undefined || !registeredRedirectUris(client, c.var.site).includes(redirectUri)) {
    return c.json(
      { error: "invalid_request", error_description: "redirect_uri is not registered for this client." },
      400,
    );
  }
  if (query.login_verifier !== undefined) return resumeAfterLogin(c, client.id, redirectUri, query);
  if (query.consent_verifier !== undefined) return resumeAfterConsent(c, client.id, redirectUri, query);
  // docs/operations.md: the details of an operation never travel in a URL; they are pushed.
  if (query.authorization_details !== undefined)
    return redirectWithError(
      c,
      redirectUri,
      query.state,
      "invalid_request",
      "authorization_details must be pushed to the pushed authorization request endpoint.",
    );

  const parsed = authorizationQuerySchema.safeParse(query);
  if (!parsed.success) {
    const unsupported = parsed.error.issues.some((issue) => issue.path[0] === "response_type");
    return redirectWithError(
      c,
      redirectUri,
      query.state,
      unsupported ? "unsupported_response_type" : "invalid_request",
      describeIssues(parsed.error),
    );
  }
  const request = toAuthorizationRequest(client.id, redirectUri, parsed.data);
  const session = browserSession(c);
  // As Hydra: prompt=login or a session older than max_age asks for a login; a skipped login claims what the
  // session's own login achieved (its acr, amr and auth_time), never more.
  if (session === undefined || needsFreshLogin(request, session.login.authTime, c.var.now)) {
    if ((request.prompt ?? "").split(" ").includes("none"))
      return redirectWithError(c, redirectUri, request.state, "login_required", "The user is not signed in.");
    return redirectToLogin(c, request);
  }
  return continueAuthorization(c, request, session);
});

/** A verifier brings the browser back: it must be live, unused and issued for this client and redirect URI. */
function redeemVerifier<K extends "login_verifier" | "consent_verifier" | "login_rejection">(
  c: EmulatorContext,
  kind: K,
  param: "login_verifier" | "consent_verifier",
  clientId: string,
  redirectUri: string,
  query: Record<string, string>,
): TicketKinds[K] | Response {
  const verifier = verifierSchema.safeParse(query[param]);
  const found = verifier.success ? c.var.services.tickets.find(kind, verifier.data, c.var.now) : undefined;
  if (
    found?.status !== "valid" ||
    found.data.request.clientId !== clientId ||
    found.data.request.redirectUri !== redirectUri
  ) {
    const reason = found?.status === "expired" ? "has expired" : "is unknown or was already used";
    return redirectWithError(
      c,
      redirectUri,
      query.state,
      "invalid_request",
      `The ${param.replace("_", " ")} ${reason}.`,
    );
  }
  c.var.services.tickets.consume(kind, query[param] ?? "", c.var.now);
  return found.data;
}

function resumeAfterLogin(
  c: EmulatorContext,
  clientId: string,
  redirectUri: string,
  query: Record<string, string>,
): Response {
  // As Hydra: the verifier of a rejected login (POST /auth/v1/login/reject) ends the authorization with its error.
  const verifier = verifierSchema.safeParse(query.login_verifier);
  if (verifier.success && c.var.services.tickets.dataOf("login_rejection", verifier.data) !== undefined) {
    const rejected = redeemVerifier(c, "login_rejection", "login_verifier", clientId, redirectUri, query);
    if (rejected instanceof Response) return rejected;
    return redirectWithError(c, redirectUri, rejected.request.state, rejected.error, rejected.description);
  }
  const accepted = redeemVerifier(c, "login_verifier", "login_verifier", clientId, redirectUri, query);
  if (accepted instanceof Response) return accepted;
  const signedIn = startBrowserSession(c, accepted.username, accepted.remember, accepted.login, accepted.device);
  return continueAuthorization(c, accepted.request, signedIn, accepted.loginChallenge);
}

function resumeAfterConsent(
  c: EmulatorContext,
  clientId: string,
  redirectUri: string,
  query: Record<string, string>,
): Response {
  const consent = redeemVerifier(c, "consent_verifier", "consent_verifier", clientId, redirectUri, query);
  if (consent instanceof Response) return consent;
  const { username, browserSession: session, login } = consent;
  return redirectWithCode(c, consent.request, { username, browserSession: session, login }, consent.grantedScope);
}

const tokenRequestSchema = z.discriminatedUnion("grant_type", [
  z.object({
    grant_type: z.literal("authorization_code"),
    client_id: z.string().max(128),
    code: z.string().min(1).max(256),
    redirect_uri: z.string().max(2048),
    code_verifier: z.string({ error: "code_verifier is required" }).max(256),
  }),
  z.object({
    grant_type: z.literal("refresh_token"),
    client_id: z.string().max(128),
    refresh_token: z.string().min(1).max(256),
    scope: z.string().max(1024).optional(),
  }),
]);

function tokenError(c: EmulatorContext, status: 400 | 401, error: string, description: string): Response {
  c.header("cache-control", "no-store");
  return c.json({ error, error_description: description }, status);
}

async function token(c: EmulatorContext): Promise<Response> {
  if (!isFormBody(c.req.raw)) {
    return tokenError(c, 400, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  }
  const form = Object.fromEntries(new URLSearchParams(await formText(c.req.raw)));
  if (form.grant_type !== "authorization_code" && form.grant_type !== "refresh_token") {
    return tokenError(c, 400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
  }
  const parsed = tokenRequestSchema.safeParse(form);
  if (!parsed.success) return tokenError(c, 400, "invalid_request", describeIssues(parsed.error));
  const body = parsed.data;
  if (findClient(body.client_id) === undefined) return tokenError(c, 401, "invalid_client", "Unknown client_id.");
  const { tickets, users } = c.var.services;
  const now = c.var.now;

  if (body.grant_type === "authorization_code") {
    // RFC 6749 §4.1.2: a code presented again may be stolen, so what its first exchange issued is revoked.
    if (tickets.wasUsed("authorization_code", body.code)) tickets.revokeTokensFromCode(body.code, now);
    const found = tickets.find("authorization_code", body.code, now);
    // A presented code is used up whatever happens next: a wrong verifier must not leave it replayable.
    tickets.consume("authorization_code", body.code, now);
    if (found.status === "missing")
      return tokenError(c, 400, "invalid_grant", "The authorization code is unknown or was already used.");
    if (found.status === "expired") return tokenError(c, 400, "invalid_grant", "The authorization code has expired.");
    const grant = found.data;
    if (grant.clientId !== body.client_id)
      return tokenError(c, 400, "invalid_grant", "The code was issued to another client.");
    if (grant.redirectUri !== body.redirect_uri)
      return tokenError(c, 400, "invalid_grant", "redirect_uri does not match the authorization request.");
    if (
      !/^[A-Za-z0-9._~-]{43,128}$/.test(body.code_verifier) ||
      !sameCode(grant.codeChallenge, await sha256Base64url(body.code_verifier))
    ) {
      return tokenError(c, 400, "invalid_grant", "The PKCE code_verifier does not match the code_challenge.");
    }
    if (users.byUsername(grant.username) === undefined)
      return tokenError(c, 400, "invalid_grant", "The user no longer exists.");
    return issueTokens(c, {
      clientId: grant.clientId,
      username: grant.username,
      scope: grant.scope,
      nonce: grant.nonce,
      code: body.code,
      browserSession: grant.browserSession,
      login: grant.login,
      authorizationDetails: grant.authorizationDetails,
    });
  }

  const found = tickets.find("refresh_token", body.refresh_token, now);
  if (found.status !== "valid" || found.data.clientId !== body.client_id) {
    return tokenError(
      c,
      400,
      "invalid_grant",
      "The refresh token is unknown, expired, used, revoked or issued to another client.",
    );
  }
  const granted = found.data.scope.split(" ").filter(Boolean);
  const asked = body.scope === undefined ? granted : body.scope.split(" ").filter(Boolean);
  if (!asked.every((scope) => granted.includes(scope)))
    return tokenError(c, 400, "invalid_scope", "The scope exceeds the original grant.");
  if (users.byUsername(found.data.username) === undefined)
    return tokenError(c, 400, "invalid_grant", "The user no longer exists.");
  // Refresh tokens rotate: each is good for one exchange.
  tickets.consume("refresh_token", body.refresh_token, now);
  return issueTokens(c, {
    clientId: found.data.clientId,
    username: found.data.username,
    scope: asked.join(" "),
    // The new tokens stay in the chain of the code and the session they descend from, and a refresh is no login:
    // they claim the acr, amr and auth_time of the login the chain began with.
    code: found.data.code,
    browserSession: found.data.browserSession,
    login: found.data.login,
  });
}

async function issueTokens(
  c: EmulatorContext,
  grant: {
    clientId: string;
    username: string;
    scope: string;
    nonce?: string | undefined;
    code: string;
    browserSession: string;
    login: Authentication;
    /** An approved operation's (docs/operations.md): returned, carried in the access token, and no refresh token. */
    authorizationDetails?: AuthorizationDetails | undefined;
  },
): Promise<Response> {
  const { tickets } = c.var.services;
  const key = await c.var.services.signingKey();
  const details = grant.authorizationDetails;
  const lifetimeSeconds = details === undefined ? accessTokenLifetimeSeconds : lifetimes.operationAccessToken / 1000;
  const subject = {
    issuer: c.var.site,
    clientId: grant.clientId,
    username: grant.username,
    scope: grant.scope,
    now: c.var.now,
    login: grant.login,
    lifetimeSeconds,
  };
  const chain = { code: grant.code, browserSession: grant.browserSession };
  // Recorded so that the bearer check can refuse the token once it is revoked (routes/bearer.ts).
  const jti = tickets.issue("access_token", newTokenId(), chain, c.var.now + lifetimeSeconds * 1000);
  // An approval is one act, not a session: a refresh would copy its details into new tokens, so it gets none,
  // whatever its scope (docs/operations.md).
  const refreshToken =
    details === undefined
      ? tickets.issue(
          "refresh_token",
          randomToken(),
          { clientId: grant.clientId, username: grant.username, scope: grant.scope, login: grant.login, ...chain },
          c.var.now + lifetimes.refreshToken,
        )
      : undefined;
  const openid = grant.scope.split(" ").includes("openid");
  c.header("cache-control", "no-store");
  return c.json({
    access_token: await signAccessToken(key, { ...subject, jti, authorizationDetails: details }),
    expires_in: lifetimeSeconds,
    scope: grant.scope,
    token_type: "bearer",
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    ...(openid ? { id_token: await signIdToken(key, { ...subject, nonce: grant.nonce }) } : {}),
    // RFC 9396 §7: the approved details, exactly as pushed.
    ...(details === undefined ? {} : { authorization_details: details }),
  });
}

oauth2.post("/oauth2/par", pushAuthorizationRequest);
oauth2.all("/oauth2/par", parMethodNotAllowed);
oauth2.post("/oauth2/token", token);
// product §7 lists a form token call under the identity API too; it is the same endpoint.
oauth2.post("/auth/v1/token", token);
