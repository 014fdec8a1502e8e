import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ModalKey } from "../../pages/messages";
import type { Outcome } from "./client";

/** SPEC §8: the type and detail of the system-transfer refusal. */
export function isSystemTransfer(outcome: Outcome<unknown>): boolean {
  return (
    !outcome.ok && outcome.problem.type === "reject_login" && outcome.problem.detail === "System transfer in progress"
  );
}

/**
 * One mapping from a refused or failed upstream call to the SPEC §8 modal the user sees. Call-specific
 * refusals (a wrong password, an e-mail already registered) are handled by the routes before this.
 */
export function modalForFailure(outcome: Outcome<unknown>): ModalKey {
  if (outcome.ok) return "unexpectedError";
  if (outcome.problem.type === "maintenance" || outcome.status === 503) return "maintenance";
  if (outcome.problem.type === "challenge_not_found" || outcome.problem.type === "challenge_expired") return "retry";
  return "unexpectedError";
}

const MODAL_STATUS: Partial<Record<ModalKey, ContentfulStatusCode>> = { retry: 409, maintenance: 503 };

/** The status of a page that shows a SPEC §8 modal after an upstream call: 502 unless the modal says more. */
export function modalStatus(modal: ModalKey): ContentfulStatusCode {
  return MODAL_STATUS[modal] ?? 502;
}

/** The status that goes with the modal of a refused or failed upstream call (504 when it timed out). */
export function failureStatus(outcome: Outcome<unknown>): ContentfulStatusCode {
  return !outcome.ok && outcome.unavailable === "timeout" ? 504 : modalStatus(modalForFailure(outcome));
}

/** An upstream refusal about the call's own input (wrong password, wrong code) rather than the upstream's health or the session. */
export function isRefusal(outcome: Outcome<unknown>): boolean {
  return (
    !outcome.ok &&
    !outcome.unavailable &&
    outcome.status >= 400 &&
    outcome.status < 500 &&
    modalForFailure(outcome) === "unexpectedError"
  );
}
