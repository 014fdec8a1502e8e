import { encodeBase64url } from "../../islands/base64url";
import type { AppContext } from "../context";
import { readSealed, writeSealed } from "./cookies";
import type { DeviceCredential } from "./state";

// docs/devices.md "The device credential": a secret this browser holds in a sealed, HttpOnly cookie, which the
// identity API knows only by its digest. product §9's device id names the browser; this proves it.

/** Whether the devices contract is on here (DEVICE_CONFIRMATION, docs/configuration.md): "on" only. */
export function devicesOn(env: { DEVICE_CONFIRMATION?: string | undefined }): boolean {
  return env.DEVICE_CONFIRMATION === "on";
}

/** The digest the identity API knows a credential by: base64url(SHA-256(key)), 43 characters. */
export async function credentialDigest(credential: Pick<DeviceCredential, "key">): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credential.key));
  return encodeBase64url(new Uint8Array(digest));
}

/** The digest of this browser's credential, or undefined while it holds none (nothing is made here). */
export async function deviceDigest(c: AppContext): Promise<string | undefined> {
  const credential = await readSealed(c, "deviceCredential");
  return credential ? credentialDigest(credential) : undefined;
}

/**
 * The digest of this browser's credential, made (and its cookie set on this response) when it holds none: a login
 * names its device with it, and the API binds it to the account once the login completes.
 */
export async function ensureDeviceDigest(c: AppContext): Promise<string> {
  const held = await readSealed(c, "deviceCredential");
  if (held) return credentialDigest(held);
  const credential = { key: encodeBase64url(crypto.getRandomValues(new Uint8Array(32))), issuedAt: Date.now() };
  await writeSealed(c, "deviceCredential", credential);
  return credentialDigest(credential);
}
