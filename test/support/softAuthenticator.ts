/**
 * A software WebAuthn authenticator and the browser around it, for tests that have no browser: it answers the
 * options of docs/passkeys.md with the `PublicKeyCredential` JSON a browser's `toJSON()` gives (WebAuthn L3
 * §5.1.8), made with real WebCrypto ES256 keys, so the relying party's verification runs for real.
 *
 * It keeps discoverable credentials (an RP ID, the user handle, a key pair and a signature counter each), attests
 * with format `none`, and signs assertions. Every ceremony can be bent the way an attacker or a broken client
 * would: another origin or RP ID, no user verification, a chosen counter or user handle, another challenge. `clone()`
 * copies the keys and counters, as a cloned authenticator would.
 *
 * It uses only WebCrypto, so it runs in workerd, Node and browsers alike, and imports nothing.
 */

/** What `/attestation/options` answers (the fields an authenticator reads). */
export interface CreationOptionsJSON {
  challenge: string;
  rp: { id?: string; name?: string };
  user: { id: string; name?: string; displayName?: string };
  excludeCredentials?: { id: string }[];
}

/** What `/assertion/options` answers (the fields an authenticator reads). */
export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/** How one ceremony departs from an honest one. */
export interface CeremonyOverrides {
  /** `clientDataJSON.origin`: the page the "browser" is on (default: the authenticator's origin). */
  origin?: string;
  /** The RP ID whose SHA-256 goes in the authenticator data (default: the options' RP ID). */
  rpId?: string;
  /** The UV flag (default: the authenticator's `userVerified`). */
  userVerified?: boolean;
  /** The UP flag (default: true). */
  userPresent?: boolean;
  /** `clientDataJSON.challenge` (default: the options' challenge). */
  challenge?: string;
  /** `clientDataJSON.type` (default: `webauthn.create` / `webauthn.get`). */
  type?: string;
  /** The signature counter to report (default: registration 0, assertion the credential's next). */
  counter?: number;
}

export interface RegistrationOverrides extends CeremonyOverrides {
  /**
   * Attest this credential of the authenticator again instead of making a new one, as an authenticator that
   * ignores `excludeCredentials` would.
   */
  credentialId?: string;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** Which credential signs (default: the newest one for the RP ID, as a user picking it would). */
  credentialId?: string;
  /** The user handle to report (default: the credential's); null as an authenticator without one. */
  userHandle?: string | null;
}

export interface SoftAuthenticatorOptions {
  /** The origin of the page the ceremonies run on, e.g. `http://localhost:5173`. */
  origin: string;
  /** The authenticator model's AAGUID (default: a fixed test one). */
  aaguid?: string;
  /** Whether it verifies its user (PIN, biometrics); the UV flag (default: true). */
  userVerified?: boolean;
  /** How much the counter grows per assertion (default 1; 0 as synced passkeys, which keep no counter). */
  counterStep?: number;
  /** Backup eligible and backed up (BE, BS flags), as a synced passkey (default: false). */
  backedUp?: boolean;
  /** What the browser reports as `transports` (default: internal, hybrid). */
  transports?: string[];
}

/** `PublicKeyCredential.toJSON()` after `navigator.credentials.create()`. */
export interface RegistrationCredentialJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: { credProps: { rk: boolean } };
  authenticatorAttachment: "platform";
}

/** `PublicKeyCredential.toJSON()` after `navigator.credentials.get()`. */
export interface AuthenticationCredentialJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string | null };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: "platform";
}

interface Credential {
  id: string;
  rpId: string;
  userHandle: string;
  keys: CryptoKeyPair;
  counter: number;
}

/** A made-up AAGUID that no real authenticator model has. */
export const TEST_AAGUID = "5e3a7c1f-0b8d-4e29-9a6f-50f7a07e5701";

const flags = { userPresent: 0x01, userVerified: 0x04, backupEligible: 0x08, backedUp: 0x10, attested: 0x40 };

export class SoftAuthenticator {
  readonly #options: Required<SoftAuthenticatorOptions>;
  readonly #credentials: Credential[];

  constructor(options: SoftAuthenticatorOptions, credentials: Credential[] = []) {
    this.#options = {
      aaguid: TEST_AAGUID,
      userVerified: true,
      counterStep: 1,
      backedUp: false,
      transports: ["internal", "hybrid"],
      ...options,
    };
    this.#credentials = credentials;
  }

  /** The ids of its credentials, oldest first. */
  get credentialIds(): string[] {
    return this.#credentials.map((credential) => credential.id);
  }

  /** The signature counter a credential last reported. */
  counterOf(credentialId: string): number {
    return this.#find(credentialId).counter;
  }

  /** A copy with the same keys and counters, from now on counting on its own: a cloned authenticator. */
  clone(): SoftAuthenticator {
    return new SoftAuthenticator(
      this.#options,
      this.#credentials.map((credential) => ({ ...credential })),
    );
  }

  /** `navigator.credentials.create({publicKey})`: a new discoverable credential, attested with format `none`. */
  async register(
    options: CreationOptionsJSON,
    overrides: RegistrationOverrides = {},
  ): Promise<RegistrationCredentialJSON> {
    const rpId = options.rp.id ?? new URL(this.#options.origin).hostname;
    let credential: Credential;
    if (overrides.credentialId !== undefined) {
      credential = this.#find(overrides.credentialId);
    } else {
      const held = new Set(this.credentialIds);
      if (options.excludeCredentials?.some((excluded) => held.has(excluded.id)))
        throw new DOMException("The authenticator already holds an excluded credential.", "InvalidStateError");
      const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
      credential = { id: toBase64url(randomBytes(16)), rpId, userHandle: options.user.id, keys, counter: 0 };
      // A new credential for the same RP and user replaces the old one, as on a real authenticator.
      const replaced = this.#credentials.findIndex((old) => old.rpId === rpId && old.userHandle === options.user.id);
      if (replaced >= 0) this.#credentials.splice(replaced, 1);
      this.#credentials.push(credential);
    }
    const clientDataJSON = this.#clientData("webauthn.create", options.challenge, overrides);
    const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", credential.keys.publicKey));
    const credentialId = fromBase64url(credential.id);
    const authData = await this.#authenticatorData(
      overrides.rpId ?? rpId,
      flags.attested,
      overrides.counter ?? credential.counter,
      overrides,
      concat(
        uuidBytes(this.#options.aaguid),
        uint16(credentialId.length),
        credentialId,
        coseEc2PublicKey(publicKey.slice(1, 33), publicKey.slice(33, 65)),
      ),
    );
    const attestationObject = encodeCbor(
      new Map<CborValue, CborValue>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: toBase64url(clientDataJSON),
        attestationObject: toBase64url(attestationObject),
        transports: [...this.#options.transports],
      },
      clientExtensionResults: { credProps: { rk: true } },
      authenticatorAttachment: "platform",
    };
  }

  /** `navigator.credentials.get({publicKey})`: an assertion signed by one of its credentials. */
  async authenticate(
    options: RequestOptionsJSON,
    overrides: AssertionOverrides = {},
  ): Promise<AuthenticationCredentialJSON> {
    const rpId = options.rpId ?? new URL(this.#options.origin).hostname;
    const credential =
      overrides.credentialId === undefined
        ? this.#credentials.filter((candidate) => candidate.rpId === rpId).at(-1)
        : this.#find(overrides.credentialId);
    if (credential === undefined)
      throw new DOMException(`The authenticator has no credential for ${rpId}.`, "NotAllowedError");
    credential.counter += this.#options.counterStep;
    const counter = overrides.counter ?? credential.counter;
    const clientDataJSON = this.#clientData("webauthn.get", options.challenge, overrides);
    const authData = await this.#authenticatorData(overrides.rpId ?? rpId, 0, counter, overrides);
    const signed = concat(authData, await sha256(clientDataJSON));
    const signature = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, credential.keys.privateKey, signed),
    );
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: toBase64url(clientDataJSON),
        authenticatorData: toBase64url(authData),
        signature: toBase64url(derSignature(signature)),
        userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  #find(credentialId: string): Credential {
    const credential = this.#credentials.find((candidate) => candidate.id === credentialId);
    if (credential === undefined) throw new Error(`the authenticator holds no credential ${credentialId}`);
    return credential;
  }

  #clientData(type: string, challenge: string, overrides: CeremonyOverrides): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(
      JSON.stringify({
        type: overrides.type ?? type,
        challenge: overrides.challenge ?? challenge,
        origin: overrides.origin ?? this.#options.origin,
        crossOrigin: false,
      }),
    );
  }

  /** WebAuthn L3 §6.1: rpIdHash, flags, signCount, then attested credential data when there is some. */
  async #authenticatorData(
    rpId: string,
    extraFlags: number,
    counter: number,
    overrides: CeremonyOverrides,
    attested: Uint8Array<ArrayBuffer> = new Uint8Array(0),
  ): Promise<Uint8Array<ArrayBuffer>> {
    let flagByte = extraFlags;
    if (overrides.userPresent ?? true) flagByte |= flags.userPresent;
    if (overrides.userVerified ?? this.#options.userVerified) flagByte |= flags.userVerified;
    if (this.#options.backedUp) flagByte |= flags.backupEligible | flags.backedUp;
    return concat(await sha256(new TextEncoder().encode(rpId)), Uint8Array.of(flagByte), uint32(counter), attested);
  }
}

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(length));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function uint16(value: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.of(value >>> 8, value & 0xff);
}

function uint32(value: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

function uuidBytes(uuid: string): Uint8Array<ArrayBuffer> {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`not a UUID: ${uuid}`);
  return Uint8Array.from({ length: 16 }, (_, index) => Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16));
}

export function toBase64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")), (char) => char.charCodeAt(0));
}

/** RFC 9053 §7.1.1: an EC2 P-256 key for ES256, keys in CTAP2 canonical order. */
function coseEc2PublicKey(x: Uint8Array, y: Uint8Array): Uint8Array<ArrayBuffer> {
  return encodeCbor(
    new Map<CborValue, CborValue>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, x],
      [-3, y],
    ]),
  );
}

/** WebCrypto signs ECDSA as r‖s; WebAuthn wants the ASN.1 DER `Ecdsa-Sig-Value` (RFC 3279 §2.2.3). */
function derSignature(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const integer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    const trimmed = bytes.slice(start);
    const positive = (trimmed[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), trimmed) : concat(trimmed);
    return concat(Uint8Array.of(0x02, positive.length), positive);
  };
  const half = raw.length / 2;
  const body = concat(integer(raw.slice(0, half)), integer(raw.slice(half)));
  return concat(Uint8Array.of(0x30, body.length), body);
}

type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue>;

/** RFC 8949 for what an authenticator writes: integers, byte and text strings, arrays and maps (in given order). */
function encodeCbor(value: CborValue): Uint8Array<ArrayBuffer> {
  const head = (major: number, length: number): Uint8Array<ArrayBuffer> => {
    if (length < 24) return Uint8Array.of((major << 5) | length);
    if (length < 0x100) return Uint8Array.of((major << 5) | 24, length);
    if (length < 0x10000) return concat(Uint8Array.of((major << 5) | 25), uint16(length));
    return concat(Uint8Array.of((major << 5) | 26), uint32(length));
  };
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error("only integers are encoded");
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = new TextEncoder().encode(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  if (Array.isArray(value)) return concat(head(4, value.length), ...value.map(encodeCbor));
  return concat(head(5, value.size), ...[...value].flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)]));
}
