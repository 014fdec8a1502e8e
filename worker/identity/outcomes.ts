import type { ModalKey } from "../../messages/modals";
import type { Outcome } from "../render";
import type { CallResult } from "./client";

/** product §8: the type and detail of the system-transfer refusal. */
export function isSystemTransfer(outcome: CallResult<unknown>): boolean {
  return (
    !outcome.ok && outcome.problem.type === "reject_login" && outcome.problem.detail === "System transfer in progress"
  );
}

/**
 * The one table from a refused or failed upstream call to the product §8 modal the user sees. Call-specific
 * refusals (a wrong password, an e-mail already registered) are handled by the routes before this.
 */
export function modalForFailure(outcome: CallResult<unknown>): ModalKey {
  if (outcome.ok) return "unexpectedError";
  if (outcome.problem.type === "maintenance" || outcome.status === 503) return "maintenance";
  // Too many device codes for the account, every session together: new devices wait, known ones sign in.
  if (outcome.problem.type === "new_devices_suspended") return "newDevicesSuspended";
  // The identity provider's own attempt caps (resends, mails): the same words as the edge's limits.
  if (outcome.problem.type === "too_many_requests" || outcome.status === 429) return "tooManyAttempts";
  if (outcome.problem.type === "challenge_not_found" || outcome.problem.type === "challenge_expired") return "retry";
  return "unexpectedError";
}

/** What a page shows after a failed upstream call: its modal, at the modal's status (504 when it timed out). */
export function failure(outcome: CallResult<unknown>): Outcome {
  const modal = modalForFailure(outcome);
  return !outcome.ok && outcome.unavailable === "timeout" ? { modal, status: 504 } : { modal };
}

/**
 * The identity API refused the call's input as malformed (400 invalid_request): an address or password the site's
 * rules let through but the upstream's do not. The field's message says so; it is the user's to correct.
 */
export function isInvalidInput(outcome: CallResult<unknown>): boolean {
  return !outcome.ok && outcome.status === 400 && outcome.problem.type === "invalid_request";
}

/** An upstream refusal about the call's own input (wrong password, wrong code) rather than the upstream's health or the session. */
export function isRefusal(outcome: CallResult<unknown>): boolean {
  return (
    !outcome.ok &&
    !outcome.unavailable &&
    outcome.status >= 400 &&
    outcome.status < 500 &&
    modalForFailure(outcome) === "unexpectedError"
  );
}

/** The upstream refused the call with this problem `type`. */
export function refusedAs(outcome: CallResult<unknown>, type: string): boolean {
  return !outcome.ok && outcome.problem.type === type;
}
