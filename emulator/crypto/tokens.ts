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

export function signAccessToken(key: SigningKey, subject: TokenSubject): Promise<string> {
  return emulatorJwt(key, subject, { scope: subject.scope, username: subject.username, client_id: subject.clientId })
    .setJti(randomToken(16))
    .sign(key.privateKey);
}

export function signIdToken(
  key: SigningKey,
  subject: TokenSubject & { nonce?: string | undefined; authTime: number },
): Promise<string> {
  const nonce = subject.nonce === undefined ? {} : { nonce: subject.nonce };
  return emulatorJwt(key, subject, { auth_time: Math.floor(subject.authTime / 1000), ...nonce }).sign(key.privateKey);
}

/** Signature and expiry by the emulator clock; id tokens (no `client_id` claim) are not bearer tokens. */
export async function verifyAccessToken(
  key: SigningKey,
  token: string,
  now: number,
): Promise<{ username: string; clientId: string } | undefined> {
  try {
    const { payload } = await jwtVerify(token, key.publicKey, { algorithms: ["ES256"], currentDate: new Date(now) });
    const clientId = payload.client_id;
    if (typeof payload.sub !== "string" || typeof clientId !== "string") return undefined;
    return { username: payload.sub, clientId };
  } catch {
    return undefined;
  }
}
