// WebAuthn's binary fields as base64url (WebAuthn L3 §5.1.8, the JSON the worker and the identity API take), for
// the passkey islands of engines that lack `PublicKeyCredential.parse…FromJSON()` and `toJSON()`.

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export function toBase64url(buffer: ArrayBuffer | null): string | null {
  return (
    buffer &&
    btoa(String.fromCharCode(...new Uint8Array(buffer)))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "")
  );
}
