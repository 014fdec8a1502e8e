import { z } from "zod/mini";
import type { AppContext } from "../context";
import { bounded } from "../queryParams";
import { callIdentity, contextField, type LoginContext, loginResponse } from "./client";

// docs/passkeys.md: the passkey calls of the identity API (a proposed extension of product §7). Every answer is a FIDO2
// ServerResponse; failures carry `type` as the other calls' problems do.

const base64url = (max: number) => bounded(1, max).check(z.regex(/^[A-Za-z0-9_-]+$/));

/** What `navigator.credentials.get()` needs, as the upstream sends it; the ceremony's `session` stays on the server. */
const requestOptionsSchema = z.object({
  challenge: base64url(128),
  timeout: z.optional(z.int().check(z.positive(), z.maximum(600_000))),
  rpId: bounded(1, 253),
  allowCredentials: z.array(z.object({ id: base64url(1024), type: z.literal("public-key") })).check(z.maxLength(0)),
  userVerification: z.literal("required"),
});

/** POST /auth/v1/passkeys/assertion/options: the same answer for everyone, bound to the login challenge. */
export function passkeyAssertionOptions(c: AppContext, loginChallenge: string) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/passkeys/assertion/options",
    json: { login_challenge: loginChallenge },
    success: [200],
    response: z.object({ ...requestOptionsSchema.shape, session: bounded(1, 2048) }),
  });
}

/** `PublicKeyCredential.toJSON()` after `navigator.credentials.get()`, as the sign-in form posts it (bounded). */
export const assertionCredentialSchema = z.object({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    userHandle: z.nullable(z.optional(base64url(128))),
  }),
  clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
  authenticatorAttachment: z.optional(z.nullable(bounded(0, 32))),
});
type AssertionCredential = z.infer<typeof assertionCredentialSchema>;

/**
 * POST /auth/v1/passkeys/assertion/result: on success the login is accepted (acr `phr`) and `redirect_to` follows. With
 * `context` (docs/devices.md) the passkey makes its device known, and no device confirmation is asked.
 */
export function passkeyAssertionResult(
  c: AppContext,
  ceremony: { loginChallenge: string; session: string; deviceId: string },
  credential: AssertionCredential,
  context: LoginContext | undefined,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/passkeys/assertion/result",
    json: {
      login_challenge: ceremony.loginChallenge,
      session: ceremony.session,
      remember: false,
      device_id: ceremony.deviceId,
      ...credential,
      ...contextField(context),
    },
    success: [201],
    response: loginResponse,
  });
}

// Registration and the user's passkeys (docs/passkeys.md, "The contract").

/** Who registers: the signed-in user's bearer token, or the single-use ticket of a password login just accepted. */
export type Registrant = { bearer: string } | { enrolmentTicket: string };

const authority = (registrant: Registrant) =>
  "bearer" in registrant ? { bearer: registrant.bearer } : { enrolmentTicket: registrant.enrolmentTicket };

const serverResponse = z.object({ status: z.literal("ok") });

/** POST /registration/code: a code mailed to the account's own address, which a password login cannot relay. */
export function passkeyRegistrationCode(c: AppContext, registrant: Registrant) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/passkeys/registration/code",
    ...authority(registrant),
    success: [201],
    response: serverResponse,
  });
}

const transports = z.optional(z.array(bounded(1, 32)).check(z.maxLength(16)));

/** What `navigator.credentials.create()` needs, as the upstream sends it (bounded); `session` stays on the server. */
const creationOptionsSchema = z.object({
  rp: z.object({ id: bounded(1, 253), name: bounded(1, 256) }),
  user: z.object({ id: base64url(128), name: bounded(1, 256), displayName: bounded(0, 256) }),
  challenge: base64url(128),
  pubKeyCredParams: z
    .array(z.object({ type: z.literal("public-key"), alg: z.int() }))
    .check(z.minLength(1), z.maxLength(16)),
  timeout: z.optional(z.int().check(z.positive(), z.maximum(600_000))),
  excludeCredentials: z.optional(
    z.array(z.object({ id: base64url(1024), type: z.literal("public-key"), transports })).check(z.maxLength(32)),
  ),
  authenticatorSelection: z.optional(
    z.object({
      residentKey: z.optional(bounded(1, 32)),
      requireResidentKey: z.optional(z.boolean()),
      userVerification: z.literal("required"),
    }),
  ),
  attestation: z.optional(bounded(1, 32)),
  extensions: z.optional(z.object({ credProps: z.optional(z.boolean()) })),
});

/** POST /attestation/options: a ceremony for the registrant, once the mailed code is right. */
export function passkeyAttestationOptions(c: AppContext, registrant: Registrant, emailCode: string | undefined) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/passkeys/attestation/options",
    ...authority(registrant),
    json: emailCode === undefined ? {} : { email_code: emailCode },
    success: [200],
    response: z.object({ ...creationOptionsSchema.shape, session: bounded(1, 2048) }),
  });
}

/** `PublicKeyCredential.toJSON()` after `navigator.credentials.create()`, as the form posts it (bounded). */
export const attestationCredentialSchema = z.object({
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(8192),
    transports,
  }),
  clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
  authenticatorAttachment: z.optional(z.nullable(bounded(0, 32))),
});
export type AttestationCredential = z.infer<typeof attestationCredentialSchema>;

/** The user's passkey, as the list and the calls that change one answer it. */
const passkeySchema = z.object({
  id: base64url(1024),
  name: z.nullable(bounded(0, 64)),
  aaguid: z.optional(z.nullable(bounded(0, 36))),
  created_at: bounded(1, 40),
  last_used_at: z.nullable(bounded(1, 40)),
  suspended: z.optional(z.boolean()),
});
export type Passkey = z.infer<typeof passkeySchema>;

/** POST /attestation/result: the signed credential of the ceremony; the account is mailed about the new passkey. */
export function passkeyAttestationResult(
  c: AppContext,
  registrant: Registrant,
  session: string,
  credential: AttestationCredential,
) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/passkeys/attestation/result",
    ...authority(registrant),
    json: { session, ...credential },
    success: [201],
    response: z.object({ credential: passkeySchema }),
  });
}

/** GET /: the signed-in user's passkeys, newest first. */
export function listPasskeys(c: AppContext, bearer: string) {
  return callIdentity(c, {
    method: "GET",
    path: "/auth/v1/passkeys",
    bearer,
    success: [200],
    response: z.object({ credentials: z.array(passkeySchema).check(z.maxLength(64)) }),
  });
}

const passkeyPath = (id: string) => `/auth/v1/passkeys/${encodeURIComponent(id)}`;

/** PATCH /{id}: the user's own name for a passkey. */
export function renamePasskey(c: AppContext, bearer: string, id: string, name: string) {
  return callIdentity(c, {
    method: "PATCH",
    path: passkeyPath(id),
    bearer,
    json: { name },
    success: [200],
    response: z.object({ credential: passkeySchema }),
  });
}

/** DELETE /{id}: the account is mailed about the removed passkey. */
export function deletePasskey(c: AppContext, bearer: string, id: string) {
  return callIdentity(c, {
    method: "DELETE",
    path: passkeyPath(id),
    bearer,
    success: [200],
    response: serverResponse,
  });
}
