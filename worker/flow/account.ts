import type { CallResult } from "../identity/client";
import { failure } from "../identity/outcomes";
import type { Outcome } from "../render";
import type { TokenState } from "../session/state";

// What every account change of a signed-in user shares (product §2 ChangePassword, ChangeEmail, RegisterEmail).

/** Whose attempt an account change is, for the per-subject rate limit: the signed-in user, already hashed. */
export function accountSubject(tokens: TokenState): string {
  return `account:${tokens.hashedUserName}`;
}

/**
 * The product §8 modal of a failed account call. The upstream refusing the bearer token (revoked, or expired by its
 * own clock) is the expiry modal of product §4, as for a token the site sees expired; anything else the one table's.
 */
export function accountFailure(outcome: CallResult<unknown>): Outcome {
  if (!outcome.ok && !outcome.unavailable && outcome.status === 401) return { modal: "tokenExpired" };
  return failure(outcome);
}
