import { z } from "zod/mini";
import { bounded } from "../queryParams";

// The shapes kept in the encrypted cookies (architecture §3, product §3). Every string is bounded so a
// cookie can never grow past the browser's 4 KB limit by accident.
const short = bounded(0, 256);
const opaque = bounded(0, 2048);

export const signInSessionSchema = z.object({
  loginChallenge: opaque,
  username: z.optional(short),
  mfa: z.optional(z.object({ session: opaque, type: z.enum(["SMS", "TOTP"]) })),
  forceChangePassword: z.optional(z.object({ session: opaque })),
  /** docs/devices.md: the login asked to confirm a new device; `destination` is the masked address the code went to. */
  device: z.optional(z.object({ session: opaque, destination: z.optional(short) })),
  /** docs/passkeys.md: the passkey sign-in ceremony this browser started (the upstream's single-use session). */
  passkey: z.optional(z.object({ session: opaque })),
  /** The password form said this browser can make a passkey (islands/PasskeySignIn.tsx): the enrolment may be offered. */
  webauthn: z.optional(z.boolean()),
  /**
   * docs/passkeys.md "Enrolment": the password login is accepted; before the browser goes on to `redirectTo`, the
   * enrolment screen offers a passkey, registered with the login's single-use `ticket` and a code mailed to the
   * account (`codeSent` once it went).
   */
  enrolment: z.optional(z.object({ ticket: opaque, redirectTo: bounded(1, 4096), codeSent: z.boolean() })),
});
export type SignInSession = z.infer<typeof signInSessionSchema>;

export const signUpSessionSchema = z.object({
  loginChallenge: opaque,
  email: z.optional(short),
  username: z.optional(short),
});
export type SignUpSession = z.infer<typeof signUpSessionSchema>;

/** The consent request of the OAuth2 server, kept out of the page (the challenge never reaches the HTML). */
export const consentStateSchema = z.object({
  consentChallenge: opaque,
  clientId: short,
  scope: bounded(0, 512),
});
export type ConsentState = z.infer<typeof consentStateSchema>;

export const tokenStateSchema = z.object({
  /** The client the tokens were issued to: a refresh must name it. */
  clientId: short,
  accessToken: bounded(0, 2048),
  refreshToken: z.optional(bounded(0, 512)),
  expiresAt: z.int(),
  scope: bounded(0, 512),
  tokenType: short,
  hashedUserName: short,
  /** The access token's `auth_time` (seconds): when the user last signed in (docs/passkeys.md, "Managing passkeys"). */
  authTime: z.optional(z.int()),
});
export type TokenState = z.infer<typeof tokenStateSchema>;

/**
 * docs/passkeys.md: a passkey registration between the mailed code and the browser's `navigator.credentials.create()`:
 * the upstream's single-use ceremony `session` and the creation options it came with (JSON, for the island's
 * same-origin fetch; never in the HTML). `owner` names whose registration it is (the enrolment ticket's digest or
 * the signed-in user's), so that another journey of the same browser cannot finish it.
 */
export const passkeyRegistrationSchema = z.object({
  session: opaque,
  options: bounded(2, 2200),
  owner: short,
});
export type PasskeyRegistration = z.infer<typeof passkeyRegistrationSchema>;

/**
 * docs/passkeys.md "Passkey first": the ticket a confirmed sign-up got to register its first passkey without another
 * mailed code, for the user it was issued to (their hashed username, as in the tokens cookie).
 */
export const signUpPasskeySchema = z.object({
  ticket: opaque,
  hashedUserName: short,
});

/** product §2 RegisterEmail: where the code went, for the user it was sent for (never in the URL). */
export const registerEmailStateSchema = z.object({
  email: short,
  hashedUserName: short,
});
/**
 * product §2 MFASetupSMS between its steps: the number typed (national, as product §5 checks it) that the abroad
 * warning is about, and whether its code has been sent (the code step shows then).
 */
export const mfaSetupStateSchema = z.object({
  phoneNumber: z.string().check(z.regex(/^0\d{10}$/)),
  sent: z.boolean(),
});
export type MfaSetupState = z.infer<typeof mfaSetupStateSchema>;

/**
 * product §2 new-password pages: the mailed link this browser opened (docs/journeys.md, the reset link), so that
 * the page it redirects to holds no secret in its address. `page` is the link's path: forgotPassword or
 * initiatePassword.
 */
export const resetLinkSchema = z.object({
  page: z.enum(["forgotPassword", "initiatePassword"]),
  clientId: short,
  code: short,
  username: short,
});

/** docs/devices.md: a device credential counts 400 days from when it was made, as long as a browser keeps a cookie. */
export const DEVICE_CREDENTIAL_LIFETIME_MS = 400 * 24 * 60 * 60 * 1000;

/**
 * docs/devices.md "The device credential": 32 random bytes (base64url) that prove this browser to the identity API
 * by their digest, and when they were made (a credential older than its cookie's 400 days counts as none).
 */
export const deviceCredentialSchema = z.object({
  key: z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/)),
  // Checked as well as the cookie's own expiry: a token sealed to live longer never makes an older credential count.
  issuedAt: z.number().check(z.refine((issuedAt) => Date.now() - issuedAt < DEVICE_CREDENTIAL_LIFETIME_MS)),
});
export type DeviceCredential = z.infer<typeof deviceCredentialSchema>;

/** What a /security form did, shown once by the GET its redirect leads to, in the browser that did it; then cleared. */
export const securityResults = ["signedOut", "othersSignedOut", "forgotten", "unknownDevice"] as const;
export const securityResultSchema = z.object({ result: z.enum(securityResults) });

/**
 * docs/operations.md "On the site": the operation this browser was shown, by its login challenge (the details, the
 * app's redirect URI and state stay upstream and are read again with it), its app's client (the brand), the
 * passkey ceremony in flight (the upstream's single-use session), and the alternative's code step.
 */
export const operationStateSchema = z.object({
  loginChallenge: opaque,
  clientId: short,
  passkey: z.optional(z.object({ session: opaque })),
  /**
   * The brand's temporary alternative: the login ID the password was accepted with, and the code the upstream asked
   * next (the second factor's, or a new device's, with the masked address it went to) by its login session.
   */
  code: z.optional(
    z.object({
      username: short,
      flow: z.enum(["mfa_totp", "mfa_sms", "device_confirmation"]),
      session: opaque,
      destination: z.optional(short),
    }),
  ),
});
export type OperationState = z.infer<typeof operationStateSchema>;
