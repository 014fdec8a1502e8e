import type { ModalKey } from "../../pages/messages";
import type { Outcome } from "./client";

/** SPEC §8: the type and detail of the system-transfer refusal. */
export function isSystemTransfer(outcome: Outcome<unknown>): boolean {
  return !outcome.ok && outcome.problem.type === "reject_login" && outcome.problem.detail === "System transfer in progress";
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
