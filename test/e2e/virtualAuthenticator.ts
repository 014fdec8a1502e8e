import type { BrowserContext, CDPSession } from "playwright-core";

// docs/passkeys.md in Chromium: the DevTools Protocol's virtual authenticator (a platform authenticator that verifies
// its user) holding a passkey whose key is made here and given to the emulator as well, as the enrolment screen would
// have done. Only Chromium has it: the files that use it are Chromium's alone (passkeys.test.ts, operations.test.ts).
// The site is opened as `localhost`: an RP ID is a host name, never an IP address.

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

export interface Passkey {
  id: Uint8Array;
  userHandle: Uint8Array;
  /** The COSE public key, for the emulator. */
  cose: Uint8Array;
  /** The PKCS #8 private key, for Chromium. */
  pkcs8: Uint8Array;
}

/** A P-256 passkey: its id, user handle, the COSE public key for the emulator and the PKCS #8 key for Chromium. */
export async function newPasskey(): Promise<Passkey> {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  // COSE_Key (RFC 9053): {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, CBOR-encoded.
  const cose = new Uint8Array([
    0xa5,
    ...[0x01, 0x02, 0x03, 0x26, 0x20, 0x01],
    ...[0x21, 0x58, 0x20, ...raw.slice(1, 33)],
    ...[0x22, 0x58, 0x20, ...raw.slice(33, 65)],
  ]);
  const id = crypto.getRandomValues(new Uint8Array(32));
  const userHandle = crypto.getRandomValues(new Uint8Array(32));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { id, userHandle, cose, pkcs8 };
}

/** The passkey as the emulator's seed takes it (`POST /__emulator/users`, `passkey`). */
export function seededPasskey(passkey: Passkey): { id: string; publicKey: string; userHandle: string } {
  return { id: base64url(passkey.id), publicKey: base64url(passkey.cose), userHandle: base64url(passkey.userHandle) };
}

/**
 * A new page of `context` with Chromium's virtual platform authenticator (holding the passkey, if given, for the RP ID
 * `rpId`) that verifies its user without asking.
 */
export async function virtualAuthenticator(context: BrowserContext, rpId: string, passkey?: Passkey, signCount = 0) {
  const page = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  if (passkey)
    await cdp.send("WebAuthn.addCredential", {
      authenticatorId,
      credential: {
        credentialId: base64(passkey.id),
        isResidentCredential: true,
        rpId,
        privateKey: base64(passkey.pkcs8),
        userHandle: base64(passkey.userHandle),
        signCount,
      },
    });
  return page;
}
