import { Secret, TOTP } from "otpauth";

/** RFC 6238 with the authenticator-app defaults (SHA-1, 6 digits, 30 s), one step of drift either way. */
export function totpValidates(secretBase32: string, code: string, now: number): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  return TOTP.validate({ token: code, secret: Secret.fromBase32(secretBase32), timestamp: now, window: 1 }) !== null;
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}
