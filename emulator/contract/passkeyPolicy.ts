import { lifetimes } from "./lifetimes";

// The relying party's fixed terms (docs/passkeys.md): the RP ID and the one allowed origin are the site's own
// (routes/siteOrigin.ts), the rest is here.

/** The RP name an authenticator shows beside the passkey. */
export const rpName = "カザハナ証券";

/** How long the browser may take over a ceremony (ms): as long as its `session` lives. */
export const ceremonyTimeoutMs = lifetimes.passkeyCeremony;

/** COSE algorithms offered and accepted, in order of preference: EdDSA, ES256, RS256. */
export const publicKeyAlgorithms = [-8, -7, -257] as const;

/** Random bytes of a ceremony's challenge and of an account's user handle. */
export const challengeBytes = 32;
export const userHandleBytes = 32;

/** A passkey's name, given by its user. */
export const maxPasskeyNameLength = 64;

/** The transports WebAuthn L3 names; others a browser reports are not kept. */
export const knownTransports = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
export type Transport = (typeof knownTransports)[number];

export function isTransport(value: string): value is Transport {
  return (knownTransports as readonly string[]).includes(value);
}
