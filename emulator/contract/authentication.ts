/**
 * What a login achieved, as the OAuth2 server's login accept records it (Hydra's `acr` and `amr`) and the id_token
 * carries it (docs/passkeys.md, "What a login claims"): OpenID Connect EAP ACR Values for `acr`, RFC 8176 and EAP
 * ACR's `pop` for `amr`. `phrh` is never claimed: attestation `none` proves nothing about the key's hardware.
 */
export type Acr = "phr" | "mfa" | "pwd";

export interface LoginMethod {
  acr: Acr;
  amr: readonly string[];
}

/** A login method and when the login was accepted (emulator clock, ms): `auth_time`. */
export interface Authentication extends LoginMethod {
  authTime: number;
}

export const loginMethods = {
  /** A passkey with user verification: the key and what unlocked it are two factors, and it is bound to the origin. */
  passkey: { acr: "phr", amr: ["pop", "mfa"] },
  passwordAndTotp: { acr: "mfa", amr: ["pwd", "otp", "mfa"] },
  passwordAndSms: { acr: "mfa", amr: ["pwd", "sms", "mfa"] },
  /** A password alone; also a sign-up confirmed with its mailed code (the code proves the mailbox, not the person). */
  password: { acr: "pwd", amr: ["pwd"] },
} as const satisfies Record<string, LoginMethod>;

/**
 * A sign-in's method as the history and the notices name it (docs/devices.md, `GET /auth/v1/user/signins`), and
 * the login method each one is.
 */
export const signInMethods = {
  passkey: loginMethods.passkey,
  password_totp: loginMethods.passwordAndTotp,
  password_sms: loginMethods.passwordAndSms,
  password: loginMethods.password,
} as const satisfies Record<string, LoginMethod>;

export type SignInMethod = keyof typeof signInMethods;

/** Discovery's `acr_values_supported`, strongest first. */
export const acrValuesSupported: readonly Acr[] = ["phr", "mfa", "pwd"];

export function isAcr(value: unknown): value is Acr {
  return typeof value === "string" && (acrValuesSupported as readonly string[]).includes(value);
}
