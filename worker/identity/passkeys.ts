import { z } from "zod/mini";
import type { AppContext } from "../context";
import { bounded } from "../queryParams";
import { callIdentity, loginResponse } from "./client";

// docs/passkeys.md: the passkey calls of the identity API (a proposed extension of SPEC §7). Every answer is a FIDO2
// ServerResponse; failures carry `type` as the other calls' problems do.

const base64url = (max: number) => bounded(1, max).check(z.regex(/^[A-Za-z0-9_-]+$/));

/** What `navigator.credentials.get()` needs, as the upstream sends it; the ceremony's `session` stays on the server. */
export const requestOptionsSchema = z.object({
  challenge: base64url(128),
  timeout: z.optional(z.int().check(z.positive(), z.maximum(600_000))),
  rpId: bounded(1, 253),
  allowCredentials: z.array(z.object({ id: base64url(1024), type: z.literal("public-key") })).check(z.maxLength(0)),
  userVerification: z.literal("required"),
});
export type RequestOptions = z.infer<typeof requestOptionsSchema>;

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
export type AssertionCredential = z.infer<typeof assertionCredentialSchema>;

/** POST /auth/v1/passkeys/assertion/result: on success the login is accepted (acr `phr`) and `redirect_to` follows. */
export function passkeyAssertionResult(
  c: AppContext,
  ceremony: { loginChallenge: string; session: string; deviceId: string },
  credential: AssertionCredential,
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
    },
    success: [201],
    response: loginResponse,
  });
}
