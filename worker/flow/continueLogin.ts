import type { AppContext } from "../context";
import { type CallResult, type LoginBody, type LoginResponse, login } from "../identity/client";
import { failure, modalForFailure } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import type { Show } from "../render";
import { clearSealed, deviceId, writeSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";
import { offerEnrolment } from "./passkeys";

// SPEC §4 sign-in: every login step (credentials, second factor, forced new password) posts the login and
// goes on the same way, so the steps share this flow.

/** The login challenge and the login ID the credentials step was accepted with; every later step names it (SPEC §7). */
export type SignInChallenge = Pick<SignInSession, "loginChallenge" | "webauthn"> & { username: string };

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
  if (next?.next === "new_password") {
    await writeSealed(c, "signIn", { ...kept, forceChangePassword: { session: next.session } });
    return c.redirect("/changePasswordInForceChangePassword", 303);
  }
  if (next) {
    await writeSealed(c, "signIn", {
      ...kept,
      mfa: { session: next.session, type: next.next === "mfa_sms" ? "SMS" : "TOTP" },
    });
    return c.redirect("/signIn/mfa", 303);
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
  const outcome = await login(c, state.loginChallenge, deviceId(c), body);
  if (outcome.ok) return continueLogin(c, state, outcome.data, show);
  const answer = await refused(outcome);
  if (answer) return answer;
  // A session the upstream no longer knows is dropped, keeping the challenge and login ID: a repeated POST
  // then shows the parameter problem rather than the same upstream refusal.
  if (body.flow !== "email_password" && modalForFailure(outcome) === "retry") {
    await writeSealed(c, "signIn", { loginChallenge: state.loginChallenge, username: state.username });
  }
  return show(failure(outcome));
}
