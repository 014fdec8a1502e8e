// WebAuthn's binary fields as base64url (WebAuthn L3 §5.1.8, the JSON the worker and the identity API take), for
// the passkey islands of engines that lack `PublicKeyCredential.parse…FromJSON()` and `toJSON()`. PasskeySignIn and
// PasskeyCreate load it only where one of them is missing (import()): a current browser never fetches it.

import { decodeBase64url, encodeBase64url } from "./base64url";

/** A credential's binary field as base64url; WebAuthn gives `null` for an absent user handle. */
function toBase64url(buffer: ArrayBuffer | null): string | null {
  return buffer && encodeBase64url(new Uint8Array(buffer));
}

/** `PublicKeyCredential.toJSON()`: the credential around its `response`, whose binary fields the caller encoded. */
export function credentialJson(credential: PublicKeyCredential, response: object) {
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: {},
    authenticatorAttachment: credential.authenticatorAttachment,
  };
}

/** What `navigator.credentials.get()` takes, as JSON: the challenge and each credential's id as base64url. */
export interface RequestOptionsJSON
  extends Omit<PublicKeyCredentialRequestOptions, "challenge" | "allowCredentials" | "extensions"> {
  challenge: string;
  allowCredentials?: { id: string; type: "public-key"; transports?: AuthenticatorTransport[] }[];
}

/** `PublicKeyCredential.parseRequestOptionsFromJSON()`: the options of `navigator.credentials.get()`. */
export function requestOptionsFromJson(options: RequestOptionsJSON): PublicKeyCredentialRequestOptions {
  return {
    ...options,
    challenge: decodeBase64url(options.challenge),
    allowCredentials: options.allowCredentials?.map((allowed) => ({ ...allowed, id: decodeBase64url(allowed.id) })),
  };
}

/** `toJSON()` of a credential from `navigator.credentials.get()` (an assertion). */
export function assertionJson(credential: PublicKeyCredential) {
  const response = credential.response as AuthenticatorAssertionResponse;
  return credentialJson(credential, {
    clientDataJSON: toBase64url(response.clientDataJSON),
    authenticatorData: toBase64url(response.authenticatorData),
    signature: toBase64url(response.signature),
    userHandle: toBase64url(response.userHandle),
  });
}

/** What `navigator.credentials.create()` takes, as JSON: the challenge, the user's id and each credential's id. */
export interface CreationOptionsJSON
  extends Omit<PublicKeyCredentialCreationOptions, "challenge" | "user" | "excludeCredentials" | "extensions"> {
  challenge: string;
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: { id: string; type: "public-key"; transports?: AuthenticatorTransport[] }[];
}

/** `PublicKeyCredential.parseCreationOptionsFromJSON()`: the options of `navigator.credentials.create()`. */
export function creationOptionsFromJson(options: CreationOptionsJSON): PublicKeyCredentialCreationOptions {
  return {
    ...options,
    challenge: decodeBase64url(options.challenge),
    user: { ...options.user, id: decodeBase64url(options.user.id) },
    excludeCredentials: options.excludeCredentials?.map((known) => ({ ...known, id: decodeBase64url(known.id) })),
  };
}

/** `toJSON()` of a credential from `navigator.credentials.create()` (an attestation). */
export function attestationJson(credential: PublicKeyCredential) {
  const response = credential.response as AuthenticatorAttestationResponse;
  return credentialJson(credential, {
    clientDataJSON: toBase64url(response.clientDataJSON),
    attestationObject: toBase64url(response.attestationObject),
    transports: response.getTransports?.() ?? [],
  });
}
