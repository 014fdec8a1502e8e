import { z } from "zod/mini";
import { countryNames, screens, signInMethods } from "../../messages/ja";
import { ErrorPage } from "../../pages/ErrorPage";
import { NotFound } from "../../pages/NotFound";
import { DeviceForgotten, type DeviceRow, SECURITY_PATH, Security, type SigninRow } from "../../pages/Security";
import { brandById } from "../../themes/brands";
import type { AppContext } from "../context";
import { accountSubject } from "../flow/account";
import { passkeyPolicy } from "../flow/passkeys";
import { recentlySignedIn, stepUp } from "../flow/recentSignIn";
import { freshTokens } from "../flow/tokens";
import { emptyForm } from "../formFields";
import type { CallResult } from "../identity/client";
import {
  type Device,
  deviceIdSchema,
  forgetDevice,
  listDevices,
  listSignins,
  type Signin,
  signOutDevice,
  signOutOtherDevices,
} from "../identity/devices";
import { failure } from "../identity/outcomes";
import { errorPage, parameterProblem, renderPage } from "../render";
import { type FormSchema, type FormStep, formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import { deviceDigest, devicesOn } from "../session/deviceCredential";
import type { securityResults, TokenState } from "../session/state";

// docs/devices.md "On the site: /security" (view `security`, after /callback): the account's sign-ins and devices,
// asked of the upstream on every request with the bearer token of the tokens cookie and this browser's
// `Device-Digest`. A token the upstream no longer takes (a session revoked from another device) or one that cannot
// be refreshed steps up: a new authorization for this view with prompt=login. Signing devices out or forgetting
// this one needs a sign-in within the last 5 minutes, as the upstream does; each answers with a 303 back to the
// list and its result's modal (post/redirect/get).

/** The sign-ins the screen shows: the newest, enough to spot one that was not the customer's. */
const SHOWN_SIGNINS = 50;

const RESULTS = {
  signedOut: "deviceSignedOut",
  othersSignedOut: "otherDevicesSignedOut",
  forgotten: "deviceForgotten",
  unknownDevice: "deviceNotFound",
} as const satisfies Record<(typeof securityResults)[number], string>;
type Result = keyof typeof RESULTS;

const text = screens.security;
const timeFormat = new Intl.DateTimeFormat("ja-JP", { timeZone: "Asia/Tokyo", dateStyle: "long", timeStyle: "short" });
const shownTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : timeFormat.format(new Date(iso)));

type Context = Pick<Signin, "browser" | "os" | "country" | "region">;
const deviceOf = ({ browser, os }: Context) => [browser, os].filter(Boolean).join(text.joined) || text.unknown;
function placeOf({ country, region }: Context): string {
  if (!country) return text.unknown;
  const name = countryNames[country] ?? country;
  return region ? text.region(name, region) : name;
}

/** The method in words; an operation's row names what was approved, never its amount or account (docs/operations.md). */
function methodOf({ method, operation }: Signin): string {
  return operation ? text.operation(text.operations[operation], signInMethods[method]) : signInMethods[method];
}

const signinRow = (signin: Signin): SigninRow => ({
  at: shownTime(signin.at),
  method: methodOf(signin),
  device: deviceOf(signin),
  place: placeOf(signin),
  brand: signin.service_id ? brandById(signin.service_id)?.displayName : undefined,
  outcome: signin.result === "success" ? undefined : signin.result,
  thisDevice: signin.this_device,
});

const deviceRow = (device: Device): DeviceRow => ({
  id: device.id,
  device: deviceOf(device),
  place: placeOf(device),
  lastUsed: shownTime(device.last_used_at),
  signedIn: device.signed_in,
  thisDevice: device.this_device,
});

/** The upstream refused the call's authority: the token (revoked, expired by its clock) or a sign-in too old. */
const needsStepUp = (outcome: CallResult<unknown>) =>
  !outcome.ok &&
  !outcome.unavailable &&
  (outcome.status === 401 || outcome.problem.type === "reauthentication_required");

/** Back to the list, its result kept for the next GET of this browser alone (a flash cookie, not the query). */
async function backToList(c: AppContext, result: Result): Promise<Response> {
  await writeSealed(c, "securityResult", { result });
  return c.redirect(SECURITY_PATH, 303);
}

/**
 * GET /security: the lists, every time from the upstream, with the result of the form this browser just posted (once);
 * 404 while the devices contract is off here.
 */
export async function showSecurity(c: AppContext): Promise<Response> {
  if (!devicesOn(c.env)) return renderPage(c, <NotFound />, { status: 404 });
  const result = (await readSealed(c, "securityResult"))?.result;
  if (result) clearSealed(c, "securityResult");
  // This device was forgotten, and with it signed out: the result alone, with no list to ask for.
  if (result === "forgotten") return renderPage(c, <DeviceForgotten />, { modal: RESULTS.forgotten });
  const tokens = await freshTokens(c);
  if (tokens === "absent") return parameterProblem(c);
  if (tokens === "expired") return stepUp(c, "security");
  const digest = await deviceDigest(c);
  const [signins, devices] = await Promise.all([
    listSignins(c, tokens.accessToken, digest),
    listDevices(c, tokens.accessToken, digest),
  ]);
  if (!signins.ok || !devices.ok) {
    // A refused token first: a new sign-in is what helps then, whatever else failed.
    const failed = [signins, devices].filter((outcome) => !outcome.ok);
    if (failed.some(needsStepUp)) return stepUp(c, "security");
    return errorPage(c, failure(failed[0] ?? signins));
  }
  const brand = c.get("brand");
  const page = (
    <Security
      signins={signins.data.signins.slice(0, SHOWN_SIGNINS).map(signinRow)}
      signinCount={signins.data.signins.length}
      devices={devices.data.devices.map(deviceRow)}
      links={{
        passkeys: passkeyPolicy(c.env, brand) !== "off",
        mfaSetup: brand.mfaTypes.some((type) => type !== "NONE"),
      }}
    />
  );
  return renderPage(c, page, result ? { modal: RESULTS[result], status: 200 } : {});
}

/**
 * The forms' state: the signed-in user's tokens, or `expired` (the step-up follows). The forms never show the lists
 * again: each ends in a redirect, and what they refuse (a malformed form, too many attempts, the upstream failing) is
 * the error page's modal.
 */
type SecurityState = TokenState | "expired";

const signedIn: ScreenLoader<SecurityState> = async (c) => {
  if (!devicesOn(c.env)) return undefined;
  const tokens = await freshTokens(c);
  return tokens === "absent" ? undefined : { state: tokens, page: <ErrorPage /> };
};

/**
 * A revoking form: a recent sign-in first (else the step-up), the upstream's call, then back to the list with its
 * result; a device the upstream does not know for this account is said so in words.
 */
function revoking<F extends FormSchema>(
  form: F,
  revoke: (c: AppContext, tokens: TokenState, form: z.infer<ReturnType<F>>) => Promise<CallResult<unknown> | Result>,
  result: Result,
): FormStep<SecurityState, F> {
  return formStep({
    screen: signedIn,
    form,
    // docs/security.md "Rate limits": the credential class, per signed-in user.
    subject: ({ state }) => (state === "expired" ? undefined : accountSubject(state)),
    submit: async (c, { state, form, show }) => {
      if (state === "expired" || !recentlySignedIn(state)) return stepUp(c, "security");
      const outcome = await revoke(c, state, form);
      if (typeof outcome === "string") return backToList(c, outcome);
      if (outcome.ok) return backToList(c, result);
      if (needsStepUp(outcome)) return stepUp(c, "security");
      if (outcome.problem.type === "not_found") return backToList(c, "unknownDevice");
      return show(failure(outcome));
    },
  });
}

/** POST /security/signout: another device's sessions and tokens revoked (its id, as the list named it). */
export const signOutStep = revoking(
  () => z.object({ id: deviceIdSchema }),
  (c, tokens, form) => signOutDevice(c, tokens.accessToken, form.id),
  "signedOut",
);

/** POST /security/signout-others: every device but this one. */
export const signOutOthersStep = revoking(
  emptyForm,
  async (c, tokens) => signOutOtherDevices(c, tokens.accessToken, await deviceDigest(c)),
  "othersSignedOut",
);

/**
 * POST /security/forget: this device (the one the upstream marks for this browser's digest) signed out and forgotten;
 * its credential cookie goes, and so do the tokens the upstream has just revoked. The next sign-in here is confirmed.
 */
export const forgetStep = revoking(
  emptyForm,
  async (c, tokens) => {
    const digest = await deviceDigest(c);
    const devices = digest ? await listDevices(c, tokens.accessToken, digest) : undefined;
    if (devices && !devices.ok) return devices;
    const here = devices?.data.devices.find((device) => device.this_device);
    if (!here) return "unknownDevice";
    const outcome = await forgetDevice(c, tokens.accessToken, here.id);
    if (outcome.ok) {
      clearSealed(c, "deviceCredential");
      clearSealed(c, "tokens");
    }
    return outcome;
  },
  "forgotten",
);
