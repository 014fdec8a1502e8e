/**
 * PBKDF2-SHA-256 via WebCrypto with a per-user 16-byte salt, stored as
 * `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` so the count can change without a migration.
 */
const iterations = 100_000;
const encoder = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, rounds: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: rounds }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${toBase64(salt)}$${toBase64(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, rounds, salt, expected] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || rounds === undefined || salt === undefined || expected === undefined) return false;
  const actual = await derive(password, fromBase64(salt), Number(rounds));
  const wanted = fromBase64(expected);
  // Constant-time compare: the emulator should not teach the site's tests to tolerate timing leaks.
  let difference = actual.length ^ wanted.length;
  for (let index = 0; index < actual.length; index += 1) difference |= (actual[index] ?? 0) ^ (wanted[index] ?? 0);
  return difference === 0;
}
