import type { AppContext } from "../context";
import { reportUnexpected } from "../errorReporting";
import { type CallResult, type LoginBody, type LoginResponse, login } from "../identity/client";
import { failure, modalForFailure } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { logEvent } from "../log";
import type { Show } from "../render";
import { clearSealed, deviceId, writeSealed } from "../session/cookies";
import { devicesOn } from "../session/deviceCredential";
import type { SignInSession } from "../session/state";
import { loginContext } from "./loginContext";
import { offerEnrolment } from "./passkeys";

// product §4 sign-in: every login step (credentials, second factor, forced new password, a new device's code) posts the
// login and goes on the same way, so the steps share this flow.

/** The login challenge and the login ID the credentials step was accepted with; every later step names it (product §7). */
export type SignInChallenge = Pick<SignInSession, "loginChallenge" | "webauthn"> & { username: string };

/** The new-device confirmation's screen (docs/devices.md). */
export const DEVICE_CONFIRMATION_PATH = "/signIn/device";

/**
 * docs/devices.md "On the site": one log line per event of the device confirmation, for operators. Never the code, the
 * session, the address, the device credential or its digest: the brand and what happened.
 */
export function logDeviceConfirmation(
  c: AppContext,
  outcome: "shown" | "confirmed" | "wrong_code" | "expired" | "resent" | "resend_refused" | "switched_off",
): void {
  logEvent(outcome === "switched_off" ? "error" : "info", "device_confirmation", {
    requestId: c.get("requestId"),
    brand: c.get("brand").id,
    outcome,
  });
}

/**
 * After a 201 login (any flow): the next step the upstream asks for, with its session kept in the sign-in
 * cookie, else the allow-listed redirect_to. The used session is dropped either way, and the whole sign-in
 * state once the login is accepted (its challenge is then spent).
 */
async function continueLogin(
  c: AppContext,
  state: SignInChallenge,
  data: LoginResponse,
  show: Show,
): Promise<Response> {
  const kept = { loginChallenge: state.loginChallenge, username: state.username, webauthn: state.webauthn };
  const next = data.additional_flow;
  // Each step by its exact name: a step this site does not know is never taken for another.
  if (next) {
    switch (next.next) {
      case "new_password":
        await writeSealed(c, "signIn", { ...kept, forceChangePassword: { session: next.session } });
        return c.redirect("/changePasswordInForceChangePassword", 303);
      case "mfa_sms":
      case "mfa_totp": {
        const mfa = { session: next.session, type: next.next === "mfa_sms" ? "SMS" : "TOTP" } as const;
        await writeSealed(c, "signIn", { ...kept, mfa });
        return c.redirect("/signIn/mfa", 303);
      }
      case "device_confirmation":
        // Only a login that carried the context can be asked this (docs/devices.md): with the switch off, the
        // upstream broke the contract, and the site has no screen to show for it.
        if (!devicesOn(c.env)) {
          logDeviceConfirmation(c, "switched_off");
          return show({ modal: "unexpectedError" });
        }
        await writeSealed(c, "signIn", { ...kept, device: { session: next.session, destination: next.destination } });
        logDeviceConfirmation(c, "shown");
        return c.redirect(DEVICE_CONFIRMATION_PATH, 303);
      default:
        // An MFA screen would post its code as a second factor: the user sees the unexpected error instead.
        logEvent("error", "login_step_unknown", { requestId: c.get("requestId"), next: next.next });
        reportUnexpected(c, "the upstream asked for a login step the site does not know", { next: next.next });
        return show({ modal: "unexpectedError" });
    }
  }
  const enrolment = await offerEnrolment(c, kept, data);
  if (enrolment) return enrolment;
  // Set before continueTo builds its response: headers added to the context afterwards would not reach it.
  clearSealed(c, "signIn");
  return continueTo(c, data.redirect_to, show);
}

/** Posts one login step; `refused` answers the upstream's refusal of this step's own input. */
export async function loginStep(
  c: AppContext,
  state: SignInChallenge,
  body: LoginBody,
  show: Show,
  refused: (outcome: CallResult<unknown>) => Response | Promise<Response> | undefined,
): Promise<Response> {
  const outcome = await login(c, state.loginChallenge, deviceId(c), body, await loginContext(c));
  if (outcome.ok) {
    if (body.flow === "device_confirmation") logDeviceConfirmation(c, "confirmed");
    return continueLogin(c, state, outcome.data, show);
  }
  const answer = await refused(outcome);
  if (answer) return answer;
  // A session the upstream no longer knows is dropped, keeping the challenge and login ID: a repeated POST
  // then shows the parameter problem rather than the same upstream refusal.
  if (body.flow !== "email_password" && modalForFailure(outcome) === "retry") {
    await writeSealed(c, "signIn", { loginChallenge: state.loginChallenge, username: state.username });
  }
  return show(failure(outcome));
}
