const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/**
 * How many tries the emulated upstream allows before it refuses, by the emulator clock. Every row is in the
 * limits table of emulator/README.md; the site maps each refusal to a product §8 message.
 */

/**
 * Wrong 6-digit or TOTP codes one code or one MFA login session takes (product §9: codes are 6 digits, so
 * unlimited guesses would find one). After this many the code or session is dead: the next attempt, right or
 * wrong, answers `expired_code` (a mailed code) or `challenge_expired` (an MFA session).
 *
 * Failed passkey assertions (`POST /auth/v1/passkeys/assertion/result` with a credential that is unknown,
 * suspended or does not verify) count the same way on their login challenge: after this many the login challenge
 * is dead (`challenge_expired`, docs/passkeys.md "Limits").
 */
export const maxWrongCodes = 5;

/**
 * Wrong passwords, counted per account and device. A device is known by its device credential's digest
 * (docs/devices.md: the login's `context.device`) once a login from it has completed; a known device has its own
 * counter, and every other device (product §9's `device_id` alone proves nothing) shares one counter per account, so
 * a stranger can slow down strangers but never lock out the owner's devices.
 */
export const passwordLockout = {
  /** Wrong passwords in a row before a counter locks. */
  failures: 5,
  /** A known device that reaches `failures` is locked this long, then starts counting again from zero. */
  knownDeviceLock: 15 * minute,
  /** Unknown devices: the first lock after `failures`; each further wrong password doubles it… */
  unknownDevicesFirstLock: 30 * second,
  /** …up to this. */
  unknownDevicesMaxLock: 15 * minute,
} as const;

/** A number of sends per user within a sliding window. */
export interface SendLimit {
  count: number;
  windowMs: number;
}

/** Mail the upstream sends on request, so anyone could make it send too much of it to someone else's mailbox. */
export const sendLimits = {
  /** `POST /auth/v1/register/confirm/resend`, per username; beyond it 429 `too_many_requests`. */
  signUpResend: { count: 3, windowMs: 10 * minute },
  /** `POST /auth/v1/password/forgot`, per account; beyond it still 201 (no enumeration) but no mail. */
  passwordMail: { count: 5, windowMs: hour },
  /** `POST /auth/v1/user/email` (a registration code), per account; beyond it 429 `too_many_requests`. */
  emailRegisterCode: { count: 3, windowMs: 10 * minute },
  /** `PATCH /auth/v1/user/email` (a link to the current address), per account; beyond it 429 `too_many_requests`. */
  emailChangeMail: { count: 3, windowMs: 10 * minute },
  /** SMS codes of `POST /auth/v1/user/mfa/setup {type:"sms"}`, per account; beyond it 429 `too_many_requests`. */
  mfaSetupSms: { count: 5, windowMs: hour },
  /** `POST /auth/v1/passkeys/registration/code`, per account; beyond it 429 `too_many_requests`. */
  passkeyRegistrationCode: { count: 3, windowMs: 10 * minute },
  /**
   * Device confirmation codes, per login `session`: the first mail and two resends (docs/devices.md, "at most 3
   * mails for one session"); beyond it 429 `too_many_requests`. The window outlasts the login challenge, so it is
   * never a rate: a session gets 3 mails in all.
   */
  deviceCode: { count: 3, windowMs: hour },
  /**
   * Device confirmation codes mailed to one account, every login session together (docs/devices.md, "Limits per
   * account"): each new session of a stranger with the password would otherwise mail the owner another code and
   * bring 5 more guesses. Beyond it, logins from new devices are refused until the window frees a mail.
   */
  deviceCodeAccount: { count: 5, windowMs: hour },
} as const satisfies Record<string, SendLimit>;

/**
 * Wrong device confirmation codes one account takes over every login session together (NIST SP 800-63B-4 throttles
 * per account, not per session). At the limit, logins from new devices are refused (429
 * `new_devices_suspended`) until the oldest of them leaves the window; known devices and passkeys still sign in, so
 * the owner is not locked out. The account is told once a window (`newDevicesSuspendedNotice`).
 */
export const deviceCodeWrongAccount: SendLimit = { count: 10, windowMs: hour };

/** One 「新しい端末からのログインを停止しました」 notice per account in this window, however often the limit is hit. */
export const newDevicesSuspendedNotice: SendLimit = { count: 1, windowMs: hour };

/**
 * product §4 "only one setup request may be in flight": while an SMS setup code sent less than this long ago is
 * pending, another SMS setup request is refused (409 `setup_pending`, Retry-After) and no second SMS goes out. A
 * TOTP setup request while a TOTP setup is pending answers the pending secret again instead of a second one.
 */
export const mfaSetupSmsInterval = minute;

/** Adding or deleting a passkey, and signing a device out or forgetting it, need a sign-in at most this long ago. */
export const reauthenticationWindow = 5 * minute;
