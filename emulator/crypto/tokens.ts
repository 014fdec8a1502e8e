import { type JWTPayload, jwtVerify, SignJWT } from "jose";
import type { AuthorizationDetails } from "../../forms/authorizationDetails";
import { type Authentication, isAcr } from "../contract/authentication";
import { randomToken } from "./randomValues";
import type { SigningKey } from "./signingKey";

export const accessTokenLifetimeSeconds = 3600;

export interface TokenSubject {
  issuer: string;
  clientId: string;
  username: string;
  scope: string;
  now: number;
  /** The login the grant came from: its acr, amr and auth_time go in every token (RFC 9068 §2.2.1, OIDC Core §2). */
  login: Authentication;
  /** How long the tokens live; `accessTokenLifetimeSeconds` unless given (an approved operation's are shorter). */
  lifetimeSeconds?: number | undefined;
}

/** `acr`, `amr` and `auth_time` (seconds) of the login behind a token. */
function loginClaims(login: Authentication): JWTPayload {
  return { acr: login.acr, amr: [...login.amr], auth_time: Math.floor(login.authTime / 1000) };
}

/** The claims every token shares: issuer, subject, audience and a lifetime by the emulator clock. */
function emulatorJwt(key: SigningKey, subject: TokenSubject, claims: JWTPayload): SignJWT {
  const iat = Math.floor(subject.now / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
    .setIssuer(subject.issuer)
    .setSubject(subject.username)
    .setAudience(subject.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (subject.lifetimeSeconds ?? accessTokenLifetimeSeconds));
}

/** A new access token id; the caller records it so the token can be revoked (state/tickets.ts `access_token`). */
export function newTokenId(): string {
  return randomToken(16);
}

/**
 * `authorizationDetails`: an approved operation's, carried as the `authorization_details` claim (RFC 9396 §9.1,
 * docs/operations.md).
 */
export function signAccessToken(
  key: SigningKey,
  subject: TokenSubject & { jti: string; authorizationDetails?: AuthorizationDetails | undefined },
): Promise<string> {
  const details = subject.authorizationDetails;
  return emulatorJwt(key, subject, {
    scope: subject.scope,
    username: subject.username,
    client_id: subject.clientId,
    ...loginClaims(subject.login),
    ...(details === undefined ? {} : { authorization_details: details }),
  })
    .setJti(subject.jti)
    .sign(key.privateKey);
}

/** What a verified access token says; whether it is still good (revoked, audience, scope) is the caller's call. */
export interface AccessTokenClaims {
  jti: string;
  username: string;
  clientId: string;
  audience: string[];
  scopes: string[];
  /** What the token's login achieved and when (`auth_time` back in ms, to the second). */
  login: Authentication;
}

export function signIdToken(key: SigningKey, subject: TokenSubject & { nonce?: string | undefined }): Promise<string> {
  const nonce = subject.nonce === undefined ? {} : { nonce: subject.nonce };
  return emulatorJwt(key, subject, { ...loginClaims(subject.login), ...nonce }).sign(key.privateKey);
}

/**
 * Signature and expiry by the emulator clock, with `expiredForMs` of grace past `exp` if asked (0: none); id tokens
 * (no `client_id` claim) are not bearer tokens.
 */
export async function verifyAccessToken(
  key: SigningKey,
  token: string,
  now: number,
  expiredForMs = 0,
): Promise<AccessTokenClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: ["ES256"],
      currentDate: new Date(now),
      clockTolerance: Math.floor(expiredForMs / 1000),
    });
    const { sub, jti, client_id: clientId, aud, scope, acr, amr, auth_time: authTime } = payload;
    if (typeof sub !== "string" || typeof jti !== "string" || typeof clientId !== "string") return undefined;
    // A token without them comes from an emulator older than acr/amr: it cannot say what its login achieved.
    if (!isAcr(acr) || typeof authTime !== "number" || !Array.isArray(amr)) return undefined;
    const audience = typeof aud === "string" ? [aud] : (aud ?? []);
    const scopes = typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
    const login = {
      acr,
      amr: amr.filter((value): value is string => typeof value === "string"),
      authTime: authTime * 1000,
    };
    return { jti, username: sub, clientId, audience, scopes, login };
  } catch {
    return undefined;
  }
}
