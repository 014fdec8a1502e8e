import { z } from "zod/mini";

// architecture §8: every query value is bounded. Challenges and codes are opaque and may be long; the rest is short.
// Values the auth-request cookie stores keep that cookie's bounds (worker/session/state.ts), so what passes here fits there.

/** A string of `min` to `max` characters (zod's smaller build, zod/mini, which keeps the bundle small: checks are functions, not methods). */
export const bounded = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));

/** A required ordinary value (client_id, username, a code from a mail link …). */
export const queryValue = bounded(1, 256);
/** A required login or consent challenge, or an authorization code. */
export const challengeValue = bounded(1, 2048);
/** A space-separated scope list; empty is a valid scope (the partner service requests none). */
export const scopeValue = bounded(0, 512);
/** An OAuth2 state or the app's URL, as the auth request stores them. */
export const stateValue = bounded(1, 512);
