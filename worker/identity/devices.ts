import { z } from "zod/mini";
import { authorizationDetailsTypes } from "../../forms/authorizationDetails";
import type { AppContext } from "../context";
import { bounded } from "../queryParams";
import { callIdentity } from "./client";

// docs/devices.md "The contract": the signed-in user's sign-in history and devices, and the calls that sign a device
// out or forget it. Each takes the bearer token of the tokens cookie; `digest` is this browser's device credential's
// (docs/devices.md "The device credential"), sent as `Device-Digest` so that the upstream marks this device's rows.

/** The contract's shape of a device id: the upstream's own name for a device, never the credential or its digest. */
export const deviceIdSchema = bounded(1, 128).check(z.regex(/^[A-Za-z0-9_-]+$/));

/** An optional text of the login context (`country`, `region`, `browser`, `os`): absent, null or a short string. */
const contextText = z.optional(z.nullable(bounded(0, 64)));
const isoTime = bounded(1, 40);

/**
 * One row of the history. docs/operations.md: `operation` is the type of the operation a passkey approved, was refused
 * for or whose login was cancelled (null or absent for a sign-in), and only such a row is `cancelled`. A type or a
 * result outside the contract is a malformed answer like any other (the list is not shown): the site names every row
 * in words, and a new type is a contract change that the site ships first.
 */
const signinSchema = z
  .object({
    at: isoTime,
    method: z.enum(["passkey", "password_totp", "password_sms", "password"]),
    browser: contextText,
    os: contextText,
    country: contextText,
    region: contextText,
    service_id: z.optional(z.nullable(bounded(0, 64))),
    result: z.enum(["success", "refused", "cancelled"]),
    device_id: z.optional(z.nullable(deviceIdSchema)),
    this_device: z.boolean(),
    operation: z.optional(z.nullable(z.enum(authorizationDetailsTypes))),
  })
  .check(z.refine((signin) => signin.result !== "cancelled" || Boolean(signin.operation)));
export type Signin = z.infer<typeof signinSchema>;

const deviceSchema = z.object({
  id: deviceIdSchema,
  browser: contextText,
  os: contextText,
  country: contextText,
  region: contextText,
  first_used_at: isoTime,
  last_used_at: isoTime,
  signed_in: z.boolean(),
  this_device: z.boolean(),
});
export type Device = z.infer<typeof deviceSchema>;

const deviceHeader = (digest: string | undefined): Record<string, string> =>
  digest ? { "Device-Digest": digest } : {};

/** GET user/signins: the last 90 days, newest first. */
export function listSignins(c: AppContext, bearer: string, digest: string | undefined) {
  return callIdentity(c, {
    method: "GET",
    path: "/auth/v1/user/signins",
    bearer,
    headers: deviceHeader(digest),
    success: [200],
    response: z.object({ signins: z.array(signinSchema).check(z.maxLength(5000)) }),
  });
}

/** GET user/devices: the devices that completed a sign-in, newest use first. */
export function listDevices(c: AppContext, bearer: string, digest: string | undefined) {
  return callIdentity(c, {
    method: "GET",
    path: "/auth/v1/user/devices",
    bearer,
    headers: deviceHeader(digest),
    success: [200],
    response: z.object({ devices: z.array(deviceSchema).check(z.maxLength(1000)) }),
  });
}

const devicePath = (id: string) => `/auth/v1/user/devices/${encodeURIComponent(id)}`;

/** POST user/devices/{id}/signout: every session and token of that device revoked. */
export function signOutDevice(c: AppContext, bearer: string, id: string) {
  return callIdentity(c, {
    method: "POST",
    path: `${devicePath(id)}/signout`,
    bearer,
    success: [204],
    response: z.unknown(),
  });
}

/** POST user/devices/signout-others: the same for every device but this one (its digest). */
export function signOutOtherDevices(c: AppContext, bearer: string, digest: string | undefined) {
  return callIdentity(c, {
    method: "POST",
    path: "/auth/v1/user/devices/signout-others",
    bearer,
    headers: deviceHeader(digest),
    success: [204],
    response: z.unknown(),
  });
}

/** DELETE user/devices/{id}: signed out as above, and forgotten: its next sign-in is confirmed again. */
export function forgetDevice(c: AppContext, bearer: string, id: string) {
  return callIdentity(c, {
    method: "DELETE",
    path: devicePath(id),
    bearer,
    success: [204],
    response: z.unknown(),
  });
}
