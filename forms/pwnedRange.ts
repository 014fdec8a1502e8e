// The Pwned Passwords range API's k-anonymity model (docs/security.md, "Leaked passwords"), shared by the worker and
// the password field's island: the SHA-1 of a password, of which only the first five hex digits leave the page or
// the worker, and the answer's lines `SUFFIX:COUNT` searched for the other 35.

export const RANGE_PREFIX_LENGTH = 5;

/** A range's prefix as the API takes it: five hex digits. */
export const RANGE_PREFIX = /^[0-9A-Fa-f]{5}$/;

/** The password's SHA-1 (of its UTF-8 bytes, as the list was made) in upper-case hex. */
export async function sha1Hex(password: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(password)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

const LINE = /^([0-9A-F]{35}):(\d+)$/;

/**
 * Whether a range answer lists the hash's suffix as seen at least once. Padding lines (count 0) and lines that are
 * not `SUFFIX:COUNT` are ignored; `undefined` when no line is well formed, which no real answer is (a range is never
 * empty, and padding makes it 800 lines or more): the answer is not one.
 */
export function listedInRange(body: string, suffix: string): boolean | undefined {
  let wellFormed = false;
  for (const line of body.split("\n")) {
    const match = LINE.exec(line.trim().toUpperCase());
    if (!match) continue;
    wellFormed = true;
    if (match[1] === suffix && Number(match[2]) > 0) return true;
  }
  return wellFormed ? false : undefined;
}
