import { EncryptJWT, type JWTPayload, jwtDecrypt } from "jose";
import type { SessionKey } from "./keys";

// Compact JWE (dir + A256GCM) carrying one purpose, an expiry and the data; a token sealed for one
// purpose never opens as another, and a token from a retired key simply stops opening.
export interface SealOptions {
  keys: SessionKey[];
  ttlSeconds: number;
  now?: number;
}

export async function seal(
  purpose: string,
  data: unknown,
  { keys, ttlSeconds, now = Date.now() }: SealOptions,
): Promise<string> {
  const [current] = keys;
  if (!current) throw new Error("no session key");
  const iat = Math.floor(now / 1000);
  return new EncryptJWT({ pur: purpose, dat: data })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: current.kid })
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .encrypt(current.secret);
}

export async function unseal(purpose: string, token: string, keys: SessionKey[], now = Date.now()): Promise<unknown> {
  try {
    const { payload } = await jwtDecrypt<JWTPayload & { pur?: unknown; dat?: unknown }>(
      token,
      async (header) => {
        const key = keys.find((k) => k.kid === header.kid);
        if (!key) throw new Error("unknown kid");
        return key.secret;
      },
      { currentDate: new Date(now), keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] },
    );
    if (payload.pur !== purpose || payload.exp === undefined) return undefined;
    return payload.dat;
  } catch {
    return undefined;
  }
}
