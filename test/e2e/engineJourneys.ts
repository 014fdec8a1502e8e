import { TOTP } from "otpauth";
import { expect } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { APP_STATE, appStart } from "../support/appStart";
import { httpsSiteUrl, withLocalCertificate } from "./browser";
import { emulator } from "./journeys";

// What the journeys in the other engines (issue 22: WebKitGTK, Firefox ESR) share, whatever drives the browser: the
// HTTPS preview's users, the app's start, the second factor's code, what the app must receive.

export const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };

/** Each way of signing in the engines go through: a password alone, or with a TOTP or an SMS code. */
export const SECOND_FACTORS = {
  password: undefined,
  TOTP: { totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" },
  SMS: { sms: "+8109012345678" },
} as const;
export type SecondFactor = keyof typeof SECOND_FACTORS;
export const secondFactors = Object.keys(SECOND_FACTORS) as SecondFactor[];

/**
 * A new user of the HTTPS preview's emulator, signing in with `factor`, and the app's start for them: the site's URL,
 * the login ID, the app's start and redirect, and the code the second step asks for (none without one).
 */
export async function signInCase(engine: string, factor: SecondFactor) {
  const baseUrl = httpsSiteUrl();
  const email = `${engine}.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const mfa = SECOND_FACTORS[factor];
  const idp = emulator(baseUrl);
  await withLocalCertificate(() => idp.seed({ email, ...(mfa ? { mfa } : {}) }));
  const start = await appStart(GUNGNIR, "extSignIn");
  const secondFactorCode = async () => {
    if (!mfa) throw new Error("a password alone has no second step");
    return "totp" in mfa
      ? new TOTP({ secret: mfa.totp }).generate()
      : withLocalCertificate(() => idp.latestCode(mfa.sms));
  };
  return {
    baseUrl,
    email,
    start,
    signInUrl: `${baseUrl}/signIn?client_id=${GUNGNIR.clientId}`,
    hasSecondStep: mfa !== undefined,
    secondFactorCode,
  };
}

/** The app received its code at its redirect URI, with its own state. */
export function expectAppCode(callback: URL): void {
  expect(callback.searchParams.get("state")).toBe(APP_STATE);
  expect(callback.searchParams.get("code")).toMatch(/.{16,}/);
}
