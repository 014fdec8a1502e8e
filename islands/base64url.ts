// RFC 4648 §5 base64url without padding, as JOSE (RFC 7515 §2), PKCE (RFC 7636 §4.2) and WebAuthn's JSON (L3 §5.1.8)
// use it. The one codec of the repository: the worker's sealed cookies and PKCE, the passkey islands in the browser
// and the emulator's ids all use it, so it lives where all three may import it (islands/ imports nothing of the worker).

export function encodeBase64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of a base64url string (padding optional); throws on anything else, base64's `+` and `/` included. */
export function decodeBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new TypeError("not base64url");
  const binary = atob(text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
