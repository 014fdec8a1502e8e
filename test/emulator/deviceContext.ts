import { expect } from "vitest";
import type { LoginContext } from "../../emulator/contract/loginContext";
import type { SeedUser } from "../support/emulatorClient";
import {
  type AuthorizeOptions,
  exchangeCode,
  follow,
  login,
  postJson,
  startLogin,
  strongPassword,
  type TokenResponse,
} from "./emulatorClient";

// docs/devices.md: the login context the site sends, device credential digests, and users whose devices are known.

/**
 * A device credential's digest, readable in a test: `label` (base64url characters) padded to the 43 characters
 * of a SHA-256 digest. A real site sends base64url(SHA-256(credential)); the emulator checks only the form.
 */
export function digestOf(label: string): string {
  if (!/^[A-Za-z0-9_-]{1,42}$/.test(label)) throw new Error(`not a digest label: ${label}`);
  return label.padEnd(43, "A");
}

/** The context of a browser in Tokyo on Chrome and Windows, with the device credential `device` unless absent. */
export function contextOf(device: string | undefined, changes: Partial<LoginContext> = {}): LoginContext {
  return {
    browser: "Chrome",
    os: "Windows",
    country: "JP",
    region: "Tokyo",
    ...(device === undefined ? {} : { device }),
    ...changes,
  };
}

/** The password step with the site's login context. */
export function loginFrom(
  challenge: string,
  username: string,
  context: LoginContext,
  password = strongPassword,
): Promise<Response> {
  return login(challenge, username, password, undefined, { context });
}

/** Seeds a user (verified, with the strong password) whose account already knows `knownDevices`. */
export async function seedWithDevices(user: SeedUser & { knownDevices?: string[] }): Promise<string> {
  const response = await postJson("/__emulator/users", { password: strongPassword, ...user });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { username: string }).username;
}

/** Follows an accepted login's redirect_to to the site's /callback and exchanges the code. */
export async function finishLogin(
  redirectTo: string,
  verifier: string,
  options: AuthorizeOptions = {},
): Promise<TokenResponse & { cookie: string | undefined }> {
  const { location, cookie } = await follow(redirectTo);
  const code = location.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location}`);
  const response = await exchangeCode(code, verifier, options);
  expect(response.status).toBe(200);
  return { ...((await response.json()) as TokenResponse), cookie };
}

/** A whole password sign-in with the site's context, to the tokens: from a device the account knows (no code). */
export async function tokensFrom(
  email: string,
  context: LoginContext,
  options: AuthorizeOptions = {},
): Promise<TokenResponse & { cookie: string | undefined }> {
  const { challenge, verifier } = await startLogin(options);
  const response = await loginFrom(challenge, email, context);
  const body = (await response.json()) as { redirect_to?: string };
  if (body.redirect_to === undefined) throw new Error(`the login was not accepted: ${JSON.stringify(body)}`);
  return finishLogin(body.redirect_to, verifier, options);
}
