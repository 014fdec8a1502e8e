import { deleteCookie, generateCookie, getCookie, setCookie } from "hono/cookie";
import type { z } from "zod/mini";
import type { AppContext } from "../context";
import { authRequestSchema } from "./authRequest";
import { parseSessionKeys } from "./keys";
import { randomString } from "./random";
import { seal, unseal } from "./sealed";
import {
  consentStateSchema,
  deviceCredentialSchema,
  mfaSetupStateSchema,
  operationStateSchema,
  passkeyRegistrationSchema,
  registerEmailStateSchema,
  resetLinkSchema,
  securityResultSchema,
  signInSessionSchema,
  signUpPasskeySchema,
  signUpSessionSchema,
  tokenStateSchema,
} from "./state";

/** Browsers drop a cookie whose name, value and attributes pass 4,096 bytes. */
export const COOKIE_SIZE_LIMIT = 4096;

type SameSite = "Lax" | "Strict";
interface SealedCookie<S extends z.ZodMiniType> {
  name: string;
  schema: S;
  maxAgeSeconds: number;
  sameSite: SameSite;
}

// The auth request must come back on the OAuth2 server's redirect to /callback, hence Lax.
export const sealedCookies = {
  authRequest: { name: "auth-request", schema: authRequestSchema, maxAgeSeconds: 60 * 60, sameSite: "Lax" },
  signIn: { name: "sign-in", schema: signInSessionSchema, maxAgeSeconds: 30 * 60, sameSite: "Strict" },
  signUp: { name: "sign-up", schema: signUpSessionSchema, maxAgeSeconds: 24 * 60 * 60, sameSite: "Strict" },
  tokens: { name: "tokens", schema: tokenStateSchema, maxAgeSeconds: 30 * 24 * 60 * 60, sameSite: "Strict" },
  consent: { name: "consent", schema: consentStateSchema, maxAgeSeconds: 30 * 60, sameSite: "Strict" },
  // product §9: an e-mail registration code is valid for 1 hour; the address it went to is kept no longer.
  registerEmail: {
    name: "register-email",
    schema: registerEmailStateSchema,
    maxAgeSeconds: 60 * 60,
    sameSite: "Strict",
  },
  mfaSetup: { name: "mfa-setup", schema: mfaSetupStateSchema, maxAgeSeconds: 15 * 60, sameSite: "Strict" },
  // product §9: a reset link is valid 60 minutes. Lax: the link is opened from a mail (another site's page, or an app),
  // and a Strict cookie would not come back on the redirect that follows a navigation another site started.
  resetLink: { name: "reset-link", schema: resetLinkSchema, maxAgeSeconds: 60 * 60, sameSite: "Lax" },
  // docs/passkeys.md: the upstream's ceremony lives 5 minutes.
  passkeyRegistration: {
    name: "passkey-registration",
    schema: passkeyRegistrationSchema,
    maxAgeSeconds: 5 * 60,
    sameSite: "Strict",
  },
  // docs/passkeys.md "Passkey first": the sign-up's ticket lives 10 minutes upstream.
  signUpPasskey: { name: "sign-up-passkey", schema: signUpPasskeySchema, maxAgeSeconds: 10 * 60, sameSite: "Strict" },
  // docs/operations.md "On the site": the operation shown, until it is approved or cancelled: 10 minutes to read and
  // sign (its login challenge lives 30 upstream). Strict: set by the app's start (the answer to a navigation from the
  // app), read only by the screen's own forms, reload and island.
  operation: { name: "operation", schema: operationStateSchema, maxAgeSeconds: 10 * 60, sameSite: "Strict" },
  // docs/devices.md "On the site: /security": a form's result, for the one GET its redirect leads to. A flash rather
  // than a query, so that a link cannot show 「この端末の登録を解除しました」 to anyone who did not do it.
  securityResult: { name: "security-result", schema: securityResultSchema, maxAgeSeconds: 60, sameSite: "Strict" },
  // docs/devices.md: the device credential lives as long as a browser keeps a cookie. Lax: it must come with the
  // app's start, a navigation another app or site begins.
  deviceCredential: {
    name: "device-credential",
    schema: deviceCredentialSchema,
    maxAgeSeconds: 400 * 24 * 60 * 60,
    sameSite: "Lax",
  },
} as const satisfies Record<string, SealedCookie<z.ZodMiniType>>;

export type SealedCookieName = keyof typeof sealedCookies;
export type SealedState<N extends SealedCookieName> = z.infer<(typeof sealedCookies)[N]["schema"]>;

class CookieTooLargeError extends Error {
  override name = "CookieTooLargeError";
}

/**
 * This request's view of each sealed state: what its cookie held, opened once (a JWE decryption each), or what the
 * request has written or cleared since, so a screen rendered right after a write (the app's start, which answers its first screen with no redirect) reads
 * the new state.
 */
function sealedOfRequest(c: AppContext): Map<string, Promise<unknown>> {
  const states = c.get("sealed") ?? new Map<string, Promise<unknown>>();
  c.set("sealed", states);
  return states;
}

async function openSealed<N extends SealedCookieName>(c: AppContext, which: N): Promise<SealedState<N> | undefined> {
  const spec = sealedCookies[which];
  const token = getCookie(c, spec.name, "host");
  if (!token) return undefined;
  const data = await unseal(spec.name, token, parseSessionKeys(c.env.SESSION_KEYS));
  const parsed = spec.schema.safeParse(data);
  return parsed.success ? (parsed.data as SealedState<N>) : undefined;
}

export function readSealed<N extends SealedCookieName>(c: AppContext, which: N): Promise<SealedState<N> | undefined> {
  const states = sealedOfRequest(c);
  const state = (states.get(which) as Promise<SealedState<N> | undefined> | undefined) ?? openSealed(c, which);
  states.set(which, state);
  return state;
}

/** Seals a state into its cookie; `maxAgeSeconds` may shorten (never lengthen) the cookie's lifetime. */
export async function writeSealed<N extends SealedCookieName>(
  c: AppContext,
  which: N,
  value: SealedState<N>,
  maxAgeSeconds: number = sealedCookies[which].maxAgeSeconds,
): Promise<void> {
  const spec = sealedCookies[which];
  const data = spec.schema.parse(value);
  const lifetime = Math.max(1, Math.min(maxAgeSeconds, spec.maxAgeSeconds));
  const token = await seal(spec.name, data, { keys: parseSessionKeys(c.env.SESSION_KEYS), ttlSeconds: lifetime });
  const options = { prefix: "host", httpOnly: true, sameSite: spec.sameSite, maxAge: lifetime } as const;
  const line = generateCookie(spec.name, token, options);
  if (line.length > COOKIE_SIZE_LIMIT)
    throw new CookieTooLargeError(`${spec.name} cookie would be ${line.length} bytes`);
  c.header("Set-Cookie", line, { append: true });
  sealedOfRequest(c).set(which, Promise.resolve(data));
}

export function clearSealed(c: AppContext, which: SealedCookieName): void {
  deleteCookie(c, sealedCookies[which].name, { prefix: "host", path: "/", secure: true });
  sealedOfRequest(c).set(which, Promise.resolve(undefined));
}

/**
 * Sign-out: every cookie of the site goes, one by one: each sealed state, the device id, the last brand and whatever
 * else the browser sent (the script marker, 'later'), but the device credential, which docs/devices.md keeps: signing
 * out does not make a device unknown. (So sign-out cannot send `Clear-Site-Data: "cookies"`, which would drop it.)
 */
export function clearSiteCookies(c: AppContext): void {
  const names = new Set<string>([DEVICE_COOKIE, LAST_BRAND_COOKIE]);
  for (const which of Object.keys(sealedCookies) as SealedCookieName[])
    if (which !== "deviceCredential") names.add(sealedCookies[which].name);
  for (const sent of Object.keys(getCookie(c)))
    if (sent.startsWith("__Host-") && /^[\w-]{1,64}$/.test(sent.slice(7))) names.add(sent.slice(7));
  names.delete(sealedCookies.deviceCredential.name);
  for (const name of names) deleteCookie(c, name, { prefix: "host", path: "/", secure: true });
  const states = sealedOfRequest(c);
  for (const which of Object.keys(sealedCookies))
    if (which !== "deviceCredential") states.set(which, Promise.resolve(undefined));
}

// product §9: the device id is 32 characters of A-Z and 0-9; it identifies the browser, so it is not secret.
const DEVICE_COOKIE = "device";
/** The last resolved brand (worker/middleware/brand.ts); not secret, so not sealed. Its name stays what browsers hold. */
export const LAST_BRAND_COOKIE = "service";
const DEVICE_ID_PATTERN = /^[A-Z0-9]{32}$/;
const DEVICE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const FOUR_HUNDRED_DAYS = 400 * 24 * 60 * 60;

export function newDeviceId(): string {
  return randomString(DEVICE_ALPHABET, 32);
}

export function deviceId(c: AppContext): string {
  const existing = getCookie(c, DEVICE_COOKIE, "host");
  if (existing && DEVICE_ID_PATTERN.test(existing)) return existing;
  const fresh = newDeviceId();
  setCookie(c, DEVICE_COOKIE, fresh, { prefix: "host", httpOnly: true, sameSite: "Lax", maxAge: FOUR_HUNDRED_DAYS });
  return fresh;
}
