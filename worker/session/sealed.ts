import { decodeBase64url, encodeBase64url } from "../../islands/base64url";
import type { SessionKey } from "./keys";

// Compact JWE (RFC 7516 §7.1: dir + A256GCM, RFC 7518 §4.5 and §5.3) carrying one purpose, an expiry and the data
// as JWT claims (`pur`, `exp`, `iat`, `dat`); a token sealed for one purpose never opens as another, and a token
// from a retired key simply stops opening. WebCrypto's AES-GCM does the work: a general JOSE library would add
// every other algorithm to the worker's upload. Only this module seals, so only its own form opens: the protected
// header {alg, enc, kid} (no `zip`, no `crit`), an empty encrypted key, a 96-bit IV and a 128-bit tag.
interface SealOptions {
  keys: SessionKey[];
  ttlSeconds: number;
  now?: number;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A key's protected header, encoded once per isolate: every token it seals starts with the same one. */
const headers = new WeakMap<SessionKey, string>();

function headerOf(key: SessionKey): string {
  let header = headers.get(key);
  if (header === undefined) {
    header = encodeBase64url(utf8.encode(JSON.stringify({ alg: "dir", enc: "A256GCM", kid: key.kid })));
    headers.set(key, header);
  }
  return header;
}

/** Each session key imported once per isolate and usage (parseSessionKeys keeps the same key objects). */
const imported = new WeakMap<SessionKey, Map<KeyUsage, Promise<CryptoKey>>>();

function aesKey(key: SessionKey, usage: KeyUsage): Promise<CryptoKey> {
  if (key.secret.length !== 32) throw new Error("A256GCM takes a 32-byte key");
  const usages = imported.get(key) ?? new Map<KeyUsage, Promise<CryptoKey>>();
  imported.set(key, usages);
  const cryptoKey =
    usages.get(usage) ??
    crypto.subtle.importKey("raw", key.secret as Uint8Array<ArrayBuffer>, "AES-GCM", false, [usage]);
  usages.set(usage, cryptoKey);
  return cryptoKey;
}

export async function seal(
  purpose: string,
  data: unknown,
  { keys, ttlSeconds, now = Date.now() }: SealOptions,
): Promise<string> {
  const [current] = keys;
  if (!current) throw new Error("no session key");
  const iat = Math.floor(now / 1000);
  const header = headerOf(current);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      // RFC 7516 §5.1: the additional authenticated data is the encoded protected header.
      { name: "AES-GCM", iv, additionalData: utf8.encode(header), tagLength: 128 },
      await aesKey(current, "encrypt"),
      utf8.encode(JSON.stringify({ pur: purpose, dat: data, iat, exp: iat + ttlSeconds })),
    ),
  );
  // RFC 7516 §7.1: header, encrypted key (none with dir), IV, ciphertext, tag (the last 16 bytes WebCrypto gives).
  const tagAt = sealed.length - 16;
  return `${header}..${encodeBase64url(iv)}.${encodeBase64url(sealed.subarray(0, tagAt))}.${encodeBase64url(sealed.subarray(tagAt))}`;
}

/** The data sealed for `purpose`, or undefined for an expired, foreign, tampered or malformed token. */
export async function unseal(purpose: string, token: string, keys: SessionKey[], now = Date.now()): Promise<unknown> {
  try {
    const parts = token.split(".");
    const [header = "", encryptedKey, iv = "", ciphertext = "", tag = ""] = parts;
    if (parts.length !== 5 || encryptedKey !== "") return undefined;
    const { alg, enc, kid, zip, crit } = JSON.parse(fromUtf8.decode(decodeBase64url(header)));
    if (alg !== "dir" || enc !== "A256GCM" || zip !== undefined || crit !== undefined) return undefined;
    const key = keys.find((candidate) => candidate.kid === kid);
    const ivBytes = decodeBase64url(iv);
    const tagBytes = decodeBase64url(tag);
    if (!key || ivBytes.length !== 12 || tagBytes.length !== 16) return undefined;
    // WebCrypto takes the tag after the ciphertext, in one buffer.
    const encrypted = decodeBase64url(ciphertext);
    const sealed = new Uint8Array(encrypted.length + tagBytes.length);
    sealed.set(encrypted);
    sealed.set(tagBytes, encrypted.length);
    const plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: ivBytes, additionalData: utf8.encode(header), tagLength: 128 },
      await aesKey(key, "decrypt"),
      sealed,
    );
    const claims = JSON.parse(fromUtf8.decode(plaintext));
    // RFC 7519 §4.1.4: expired once the current time reaches `exp`; a sealed token always has one.
    if (claims.pur !== purpose || typeof claims.exp !== "number" || claims.exp <= Math.floor(now / 1000)) {
      return undefined;
    }
    return claims.dat;
  } catch {
    return undefined;
  }
}
