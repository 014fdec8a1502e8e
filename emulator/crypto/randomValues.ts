import { encodeBase64url } from "../../islands/base64url";

/** Unguessable ids for challenges, verifiers, codes and tokens: 32 random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return encodeBase64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A 6-digit code drawn without modulo bias, as the mails and SMS carry it. */
export function sixDigitCode(): string {
  const limit = Math.floor(0x1_0000_0000 / 1_000_000) * 1_000_000;
  for (;;) {
    const [value] = crypto.getRandomValues(new Uint32Array(1));
    if (value !== undefined && value < limit) return String(value % 1_000_000).padStart(6, "0");
  }
}
