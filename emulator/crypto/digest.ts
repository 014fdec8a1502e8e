import { encodeBase64url } from "../../islands/base64url";

/** base64url(SHA-256(UTF-8(text))) without padding: RFC 7636's S256, and an operation's binding (docs/operations.md). */
export async function sha256Base64url(text: string): Promise<string> {
  return encodeBase64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}
