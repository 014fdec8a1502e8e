import { sealedCookies } from "../../worker/session/cookies";
import { sealedCookie } from "./forms";

// docs/devices.md: the device every test's browser is by default, so that a journey about something else is not
// stopped by the new-device confirmation. Seeded users know it (emulatorClient.ts `seed`); the workerd Journey and the
// engines' tabs carry its sealed cookie. A test about a new device seeds `knownDevices: []` or starts without it.

/** The device credential's 32 bytes (base64url), fixed: "test-device-credential-key-00001". */
export const TEST_DEVICE_KEY = "dGVzdC1kZXZpY2UtY3JlZGVudGlhbC1rZXktMDAwMDE";

/** Its digest, base64url(SHA-256(key)), as the site names the device to the identity API (checked in the unit tests). */
export const TEST_DEVICE_DIGEST = "0OAD-B8wKY677qdRUYtfo3VJ5rOknJD2INN1puXtfVI";

/** The cookie's name, as the browser holds it. */
export const DEVICE_CREDENTIAL_COOKIE = `__Host-${sealedCookies.deviceCredential.name}`;

/**
 * The test device's cookie (`__Host-device-credential=…`), sealed with `sessionKeys` as the site seals it when the
 * credential is made, at `issuedAt` (milliseconds since the epoch; now unless given).
 */
export function testDeviceCookie(sessionKeys: string, issuedAt = Date.now()): Promise<string> {
  const lifetime = sealedCookies.deviceCredential.maxAgeSeconds;
  return sealedCookie(sessionKeys, "deviceCredential", { key: TEST_DEVICE_KEY, issuedAt }, lifetime, issuedAt);
}

/** The value alone (what a browser driver plants), sealed with `sessionKeys`. */
export async function testDeviceCookieValue(sessionKeys: string): Promise<string> {
  const cookie = await testDeviceCookie(sessionKeys);
  return cookie.slice(DEVICE_CREDENTIAL_COOKIE.length + 1);
}
