import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeBase64url, encodeBase64url } from "../../islands/base64url";

export type { AuthenticationResponseJSON, AuthenticatorTransportFuture, RegistrationResponseJSON };

/** What the relying party expects of a ceremony: its challenge, the one allowed origin and the RP ID. */
export interface Ceremony {
  challenge: string;
  origin: string;
  rpId: string;
}

/** A credential that passed registration, ready to be kept (public key as base64url COSE). */
export interface RegisteredCredential {
  id: string;
  publicKey: string;
  counter: number;
  aaguid: string;
  backedUp: boolean;
}

export type Verdict<T> = { verified: true; value: T } | { verified: false; reason: string };

function refused(error: unknown): { verified: false; reason: string } {
  return { verified: false, reason: error instanceof Error ? error.message : String(error) };
}

/**
 * WebAuthn L3 §7.1 through @simplewebauthn/server: type `webauthn.create`, the exact challenge and origin, the RP
 * ID's hash, user presence and user verification, an offered algorithm, and the attestation statement.
 */
export async function verifyRegistration(
  response: RegistrationResponseJSON,
  ceremony: Ceremony,
  algorithms: readonly number[],
): Promise<Verdict<RegisteredCredential>> {
  try {
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: [...algorithms],
    });
    if (!result.verified) return { verified: false, reason: "The attestation statement did not verify." };
    const { credential, aaguid, credentialBackedUp } = result.registrationInfo;
    return {
      verified: true,
      value: {
        id: credential.id,
        publicKey: encodeBase64url(credential.publicKey),
        counter: credential.counter,
        aaguid,
        backedUp: credentialBackedUp,
      },
    };
  } catch (error) {
    return refused(error);
  }
}

/** What a verified assertion reports: its signature counter and whether the credential is backed up now. */
export interface Assertion {
  counter: number;
  backedUp: boolean;
}

/**
 * WebAuthn L3 §7.2 through @simplewebauthn/server: type `webauthn.get`, the exact challenge and origin, the RP ID's
 * hash, user presence and verification, and the signature by the credential's key.
 *
 * The library compares the counter before it checks the signature, so a forged response with a low counter would
 * read as a cloned authenticator and get the passkey suspended by anyone who knows its id. It is therefore given a
 * stored counter of 0 (which passes any counter) and the caller compares the verified counter (`counterWentBack`).
 */
export async function verifyAssertion(
  response: AuthenticationResponseJSON,
  ceremony: Ceremony,
  credential: { id: string; publicKey: string },
): Promise<Verdict<Assertion>> {
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      credential: { id: credential.id, publicKey: decodeBase64url(credential.publicKey), counter: 0 },
      requireUserVerification: true,
    });
    if (!result.verified) return { verified: false, reason: "The signature did not verify." };
    const { newCounter, credentialBackedUp } = result.authenticationInfo;
    return { verified: true, value: { counter: newCounter, backedUp: credentialBackedUp } };
  } catch (error) {
    return refused(error);
  }
}

/**
 * WebAuthn L3 §6.1.1: a signature counter that did not grow, when either it or the stored one is non-zero, is a
 * sign that the authenticator was copied (authenticators that keep no counter always report 0).
 */
export function counterWentBack(stored: number, received: number): boolean {
  return (stored > 0 || received > 0) && received <= stored;
}
