/** product §9 device ids and PKCE verifiers: `length` characters of `alphabet`, every character equally likely. */
export function randomString(alphabet: string, length: number): string {
  // Rejection sampling: bytes at or above the largest multiple of the alphabet's size would favour its start.
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out += alphabet.charAt(byte % alphabet.length);
    }
  }
  return out;
}
