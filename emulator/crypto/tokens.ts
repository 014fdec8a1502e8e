import { type JWTPayload, jwtVerify, SignJWT } from "jose";
import { randomToken } from "./randomValues";
import type { SigningKey } from "./signingKey";

export const accessTokenLifetimeSeconds = 3600;

export interface TokenSubject {
  issuer: string;
  clientId: string;
  username: string;
  scope: string;
  now: number;
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
    .setExpirationTime(iat + accessTokenLifetimeSeconds);
}

/** A new access token id; the caller records it so the token can be revoked (state/tickets.ts `access_token`). */
export function newTokenId(): string {
  return randomToken(16);
}

export function signAccessToken(key: SigningKey, subject: TokenSubject & { jti: string }): Promise<string> {
  return emulatorJwt(key, subject, { scope: subject.scope, username: subject.username, client_id: subject.clientId })
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
}

export function signIdToken(
  key: SigningKey,
  subject: TokenSubject & { nonce?: string | undefined; authTime: number },
): Promise<string> {
  const nonce = subject.nonce === undefined ? {} : { nonce: subject.nonce };
  return emulatorJwt(key, subject, { auth_time: Math.floor(subject.authTime / 1000), ...nonce }).sign(key.privateKey);
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
    const { sub, jti, client_id: clientId, aud, scope } = payload;
    if (typeof sub !== "string" || typeof jti !== "string" || typeof clientId !== "string") return undefined;
    const audience = typeof aud === "string" ? [aud] : (aud ?? []);
    const scopes = typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
    return { jti, username: sub, clientId, audience, scopes };
  } catch {
    return undefined;
  }
}
