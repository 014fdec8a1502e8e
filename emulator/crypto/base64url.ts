/** RFC 4648 §5 without padding: the encoding of PKCE challenges and of every id the emulator hands out. */
export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
