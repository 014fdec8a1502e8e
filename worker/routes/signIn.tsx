import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { type ModalKey, type ModalText, screens } from "../../pages/messages";
import { SignIn, type SignInProps } from "../../pages/SignIn";
import { brandById } from "../../themes/brands";
import type { AppContext, AppEnv } from "../context";
import { readForm, ruleField } from "../formBody";
import { type LoginResponse, login, type Outcome, passwordForgot } from "../identity/client";
import { failureStatus, isRefusal, isSystemTransfer, modalForFailure, modalStatus } from "../identity/outcomes";
import { continueTo } from "../identity/redirects";
import { renderPage } from "../render";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";
import { clientIdFor } from "../tenantClient";

export const signInRoutes = new Hono<AppEnv>();

/** The service whose users are being moved over from an earlier service (SPEC §8 system transfer). */
const TRANSFER_SERVICE = "liqueur-lemon";

type SignInChallenge = Pick<SignInSession, "loginChallenge" | "username">;

/**
 * The modal after a second step (MFA code, new password) failed. A session the upstream no longer knows is
 * dropped, keeping the challenge and login ID, so a repeated POST shows the parameter problem.
 */
export async function failedStepModal(
  c: AppContext,
  state: SignInChallenge,
  outcome: Outcome<unknown>,
): Promise<ModalKey> {
  const modal = modalForFailure(outcome);
  if (modal === "retry")
    await writeSealed(c, "signIn", { loginChallenge: state.loginChallenge, username: state.username });
  return modal;
}

/**
 * After a 201 login (any flow): the next step the upstream asks for, with its session kept in the sign-in
 * cookie, else the allow-listed redirect_to. The used session is dropped either way, and the whole sign-in
 * state once the login is accepted (its challenge is then spent); a modal key means no redirect happened.
 */
export async function continueLogin(
  c: AppContext,
  state: SignInChallenge,
  data: LoginResponse,
): Promise<Response | "retry" | "unexpectedError"> {
  const kept = { loginChallenge: state.loginChallenge, username: state.username };
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
  // Set before continueTo builds its response: headers added to the context afterwards would not reach it.
  clearSealed(c, "signIn");
  return continueTo(c, data.redirect_to);
}

/** SPEC §8: the system-transfer notice; the transferred service's user is first mailed a password-setting link. */
async function transferNotice(
  c: AppContext,
  clientId: string | undefined,
  username: string,
): Promise<{ notice: ModalText } | { failed: Outcome<unknown> }> {
  const brand = c.get("brand");
  const earlierService = brandById(TRANSFER_SERVICE)?.transfer?.earlierServiceName ?? brand.providerName;
  const text = screens.signIn;
  if (brand.id !== TRANSFER_SERVICE)
    return {
      notice: {
        title: text.transferElsewhereTitle,
        body: text.transferElsewhereBody(brand.providerName, earlierService),
      },
    };
  const sent = clientId ? await passwordForgot(c, clientId, username, true) : undefined;
  if (sent && !sent.ok) return { failed: sent };
  return { notice: { title: text.transferResetTitle, body: text.transferResetBody(earlierService) } };
}

signInRoutes.get("/signIn", async (c) => {
  // Reached from the login URL (sign-in cookie) or from sign-up's "already have an account" link (sign-up cookie).
  const [signIn, signUp, authRequest] = await Promise.all([
    readSealed(c, "signIn"),
    readSealed(c, "signUp"),
    readSealed(c, "authRequest"),
  ]);
  const clientId = clientIdFor(c, authRequest);
  if (!signIn && !signUp) return renderPage(c, <SignIn clientId={clientId} modal="parameterError" />, 400);
  return renderPage(c, <SignIn clientId={clientId} username={authRequest?.autoFillUserName ?? signIn?.username} />);
});

signInRoutes.post("/signIn", async (c) => {
  const serviceId = c.get("brand").id;
  const form = await readForm(
    c,
    z.object({ username: ruleField("loginId"), password: ruleField("password", { serviceId }) }),
  );
  const [signIn, signUp, authRequest] = await Promise.all([
    readSealed(c, "signIn"),
    readSealed(c, "signUp"),
    readSealed(c, "authRequest"),
  ]);
  const clientId = clientIdFor(c, authRequest);
  const loginChallenge = signIn?.loginChallenge ?? signUp?.loginChallenge;
  // The password is never handed back to the page; the login ID the user typed always is.
  const page = (props: Omit<SignInProps, "clientId">, status: ContentfulStatusCode) =>
    renderPage(c, <SignIn clientId={clientId} {...props} />, status);
  if (!loginChallenge) return page({ modal: "parameterError" }, 400);
  if (!form.ok) return page({ username: form.values.username, errors: form.errors }, 422);

  const { username, password } = form.data;
  const outcome = await login(c, loginChallenge, deviceId(c), { flow: "email_password", username, password });
  if (outcome.ok) {
    const next = await continueLogin(c, { loginChallenge, username }, outcome.data);
    return next instanceof Response ? next : page({ username, modal: next }, modalStatus(next));
  }
  if (isSystemTransfer(outcome)) {
    const answer = await transferNotice(c, clientId, username);
    if ("notice" in answer) return page({ username, notice: answer.notice }, 403);
    return page({ username, modal: modalForFailure(answer.failed) }, failureStatus(answer.failed));
  }
  if (isRefusal(outcome)) return page({ username, modal: "loginFailed" }, 401);
  return page({ username, modal: modalForFailure(outcome) }, failureStatus(outcome));
});
