import type { FieldMessageKey } from "../../messages/ja";
import type { AppContext } from "../context";
import { jsonField } from "../formFields";
import type { CallResult } from "../identity/client";
import { failure } from "../identity/outcomes";
import {
  type AttestationCredential,
  attestationCredentialSchema,
  passkeyAttestationOptions,
  passkeyAttestationResult,
  type Registrant,
} from "../identity/passkeys";
import { logEvent } from "../log";
import type { Outcome, Show } from "../render";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import type { PasskeyRegistration } from "../session/state";

// docs/passkeys.md: a passkey registration, shared by the enrolment after a password sign-in (the login's ticket) and
// /passkeys (the signed-in user's bearer token). The mailed code opens a ceremony; its single-use `session` and its
// creation options wait in a sealed cookie of this browser, named for their owner, until the island asks for the
// options (same origin only) and the form posts the new credential.

/** The new credential as the form posts it: `PublicKeyCredential.toJSON()`, at most 16 KB. */
export const newCredentialField = jsonField(attestationCredentialSchema, 16_384);

/** The longest creation options (JSON) the registration cookie keeps (worker/session/state.ts). */
const MAX_OPTIONS_LENGTH = 2200;

/** The registration this browser has ready for `owner`, if any. */
export async function registrationFor(c: AppContext, owner: string) {
  const registration = await readSealed(c, "passkeyRegistration");
  return registration?.owner === owner ? registration : undefined;
}

/** The field message of a refused code, or undefined when the refusal is not about the code. */
function codeProblem(outcome: CallResult<unknown>): FieldMessageKey | undefined {
  if (outcome.ok) return undefined;
  if (outcome.problem.type === "expired_code") return "code.expired";
  if (outcome.problem.type === "invalid_code" || outcome.problem.type === "email_code_required") return "code.wrong";
  return undefined;
}

/** A refused code shown on its field (401); undefined when the refusal is not about the code. */
export function showCodeRefusal(outcome: CallResult<unknown>, show: Show): Promise<Response> | undefined {
  const problem = codeProblem(outcome);
  return problem ? show({ form: { values: {}, errors: { code: problem } }, status: 401 }) : undefined;
}

/**
 * What a refused registration shows: the ceremony is spent, so the page goes back to the code step with this modal
 * (the upstream's own modal when it failed, the 'not registered' one when it refused the credential).
 */
export function registrationFailure(outcome: CallResult<unknown> | undefined): Outcome {
  if (outcome && !outcome.ok && (outcome.unavailable || outcome.status >= 500)) return failure(outcome);
  if (outcome && !outcome.ok && outcome.problem.type === "credential_exists") return { modal: "passkeyExists" };
  return { modal: "passkeyNotRegistered" };
}

/** Where a passkey was registered: the step after sign-up, the enrolment, /passkeys, or the second-factor step. */
export type RegistrationPlace = "signUp" | "enrolment" | "passkeys" | "mfaSetUp";

/** One line per passkey registered, by brand and place: operators count adoption from these (docs/runbook.md). */
export function logRegistration(c: AppContext, place: RegistrationPlace): void {
  logEvent("info", "passkey_registered", { requestId: c.get("requestId"), brand: c.get("brand").id, place });
}

/**
 * POST /attestation/options with the mailed code (none with a sign-up's ticket); on success the ceremony waits in
 * this browser's cookie.
 */
export async function startRegistration(
  c: AppContext,
  registrant: Registrant,
  owner: string,
  code: string | undefined,
) {
  const outcome = await passkeyAttestationOptions(c, registrant, code);
  if (outcome.ok) {
    const { session, ...options } = outcome.data;
    // A cookie holds 4 KB: an account with very many passkeys gets its options without the list of those to exclude
    // (the upstream still refuses a passkey registered twice, 409 credential_exists).
    let json = JSON.stringify(options);
    if (json.length > MAX_OPTIONS_LENGTH) json = JSON.stringify({ ...options, excludeCredentials: [] });
    await writeSealed(c, "passkeyRegistration", { session, options: json, owner });
  }
  return outcome;
}

/**
 * POST /attestation/result with the ceremony the screen found in this browser's cookie (`registrationFor`), which is
 * spent whatever the answer.
 */
export async function finishRegistration(
  c: AppContext,
  registrant: Registrant,
  registration: PasskeyRegistration | undefined,
  credential: AttestationCredential,
) {
  clearSealed(c, "passkeyRegistration");
  if (!registration) return undefined;
  return passkeyAttestationResult(c, registrant, registration.session, credential);
}

/**
 * POST /passkey/registration/options: the creation options of this browser's ceremony, for the island's
 * `navigator.credentials.create()`. Same-origin fetches only; the challenge never sits in the HTML.
 */
export async function registrationOptions(c: AppContext): Promise<Response> {
  if (c.req.header("sec-fetch-site") !== "same-origin") return c.json({ type: "forbidden" }, 403);
  const registration = await readSealed(c, "passkeyRegistration");
  if (!registration) return c.json({ type: "not_found" }, 404);
  c.header("Cache-Control", "no-store");
  return c.json({ publicKey: JSON.parse(registration.options) as unknown });
}
