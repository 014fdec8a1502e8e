import type { AppContext } from "../context";
import { passkeyAssertionOptions } from "../identity/passkeys";

// docs/passkeys.md: the island's request for a passkey ceremony, for the sign-in and for an operation's approval
// (docs/operations.md, "On the site"). Apart from ./passkeys.ts, which the unit tests load without the identity client.

/**
 * docs/passkeys.md: a passkey ceremony's options for the island of a page of this site, bound to `loginChallenge`:
 * the upstream's single-use session kept by `keep` (in a sealed cookie), the WebAuthn options answered as JSON (a
 * refusal 409, a failing upstream 502). The sign-in's and an operation's.
 */
export async function answerAssertionOptions(
  c: AppContext,
  loginChallenge: string,
  keep: (session: string) => Promise<void>,
): Promise<Response> {
  const outcome = await passkeyAssertionOptions(c, loginChallenge);
  if (!outcome.ok) return c.json({ type: "unavailable" }, outcome.unavailable || outcome.status >= 500 ? 502 : 409);
  const { session, ...publicKey } = outcome.data;
  await keep(session);
  c.header("Cache-Control", "no-store");
  return c.json({ publicKey });
}

/** The island's fetch comes from a page of this site (Fetch Metadata); anything else is refused (403). */
export function fromOwnPage(c: AppContext): boolean {
  return c.req.header("sec-fetch-site") === "same-origin";
}
