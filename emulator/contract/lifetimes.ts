const minute = 60_000;
const hour = 60 * minute;

/** How long each thing the emulator hands out stays valid, by the emulator clock (ms). */
export const lifetimes = {
  loginChallenge: 30 * minute,
  consentChallenge: 30 * minute,
  verifier: 10 * minute,
  loginSession: 10 * minute,
  smsCode: 3 * minute,
  browserSession: 24 * hour,
  authorizationCode: minute,
  refreshToken: 30 * 24 * hour,
  signUpCode: 24 * hour,
  resetCode: 60 * minute,
  emailRegisterCode: hour,
  emailChangeLink: 24 * hour,
  totpSetup: hour,
  /** The code mailed before a passkey is added after a password sign-in (docs/passkeys.md). */
  passkeyRegistrationCode: 10 * minute,
  /** A passkey ceremony's `session` and its challenge, from the options call to the result call. */
  passkeyCeremony: 5 * minute,
  /**
   * The passkey enrolment ticket of a password login's answer: "a single-use ticket for this user and this login
   * (10 minutes)" (docs/passkeys.md, "Enrolment after a password sign-in").
   */
  passkeyEnrolment: 10 * minute,
  /**
   * A device confirmation's code and its `session` (docs/devices.md): 10 minutes from the latest mail, so a resend
   * gives the new code its full 10 minutes; then both are dead (`challenge_expired`).
   */
  deviceConfirmation: 10 * minute,
  /**
   * A pushed authorization request (`POST /oauth2/par`, docs/operations.md): its `request_uri` is good this long, once
   * (RFC 9126 §2.2 suggests 5 to 600 seconds; the browser is sent on at once).
   */
  pushedRequest: 90 * 1000,
  /** The access token of an approved operation: the app's server uses it once, right after the approval. */
  operationAccessToken: 5 * minute,
  /**
   * What the sample app (routes/sampleApp.ts) keeps of a push until its code comes back: as long as the login
   * challenge the push starts.
   */
  sampleAppPush: 30 * minute,
  /** The sign-in history: rows older than this are dropped, and the country rule looks this far back. */
  signInHistory: 90 * 24 * hour,
} as const;
