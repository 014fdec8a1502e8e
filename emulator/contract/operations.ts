import {
  type AuthorizationDetails,
  type AuthorizationDetailsType,
  authorizationDetailsTypes,
  canonicalJson,
} from "../../forms/authorizationDetails";
import { sha256Base64url } from "../crypto/digest";

// docs/operations.md: an operation the customer approves with a passkey, pushed by the app (RFC 9126) as RFC 9396
// `authorization_details` (their schema: forms/authorizationDetails.ts).

/** Discovery's `authorization_details_types_supported`. */
export const operationTypes: readonly AuthorizationDetailsType[] = authorizationDetailsTypes;

/** RFC 9126 §2.2: the `request_uri` of a pushed request is this URN and a random part. */
export const requestUriPrefix = "urn:ietf:params:oauth:request_uri:";

/** The largest body `POST /oauth2/par` reads (RFC 9126 §2.3: beyond it, 413). */
export const maxPushedRequestBytes = 16 * 1024;

/**
 * What a pushed request carries beyond the authorization parameters: the approved details, and a random nonce of its
 * own (not OIDC's `nonce`) that the passkey challenge is derived from, so that no two pushed requests share one.
 */
export interface PushedOperation {
  bindingNonce: string;
  details: AuthorizationDetails;
}

/** The operation's type, as the sign-in history names it (`operation`); one entry per request for now. */
export function operationType(operation: PushedOperation): AuthorizationDetailsType {
  const [detail] = operation.details;
  if (detail === undefined) throw new Error("a pushed operation holds one entry");
  return detail.type;
}

/**
 * docs/operations.md, "The binding": the WebAuthn challenge of an approval is
 * base64url(SHA-256(UTF-8(nonce + "." + canonicalJson(details)))), so the signed assertion covers exactly what was shown.
 */
export async function bindingChallenge(operation: PushedOperation): Promise<string> {
  return sha256Base64url(`${operation.bindingNonce}.${canonicalJson(operation.details)}`);
}
