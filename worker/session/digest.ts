import { encodeBase64url } from "../../islands/base64url";

// SHA-256 as the site uses it: hex for hashed user names and rate-limit keys, base64url for PKCE (product §9).

function sha256(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
}

export async function sha256Hex(value: string): Promise<string> {
  return [...new Uint8Array(await sha256(value))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The S256 PKCE challenge of a verifier (RFC 7636). */
export async function s256(verifier: string): Promise<string> {
  return encodeBase64url(new Uint8Array(await sha256(verifier)));
}
