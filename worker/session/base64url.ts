// RFC 4648 §5 base64url without padding, as JOSE (RFC 7515 §2) and PKCE (RFC 7636 §4.2) use it.

export function encodeBase64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Throws on anything that is not base64url (`+` and `/` included: that is base64's alphabet). */
export function decodeBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (/[+/]/.test(text)) throw new TypeError("not base64url");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
