import type { ReactElement } from "react";
import { z } from "zod/mini";
import { NewPassword, type NewPasswordVariant } from "../../pages/NewPassword";
import { ResetPassword } from "../../pages/ResetPassword";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import { registeredRedirectUris, serviceIdForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { forgetAuthRequest } from "../flow/forgetAuthRequest";
import { brandRules, ruleField } from "../formFields";
import { type Outcome, passwordConfirm, passwordForgot } from "../identity/client";
import { failure, isRefusal } from "../identity/outcomes";
import { logEvent } from "../log";
import { queryValue } from "../queryParams";
import { normalisedSubject } from "../rateLimit";
import { formStep, type ScreenLoader } from "../routeKinds";

// SPEC §2 password reset and initiation: e-mail → mail sent → the mailed link's new-password page. The pages are
// reached outside any app's authorization (a link, a mail), so a GET first forgets the stored auth request; the
// service comes from client_id, which must be one of the brand data's (else the parameter modal, history back).
// The forms carry the link's parameters as hidden fields, checked again on every POST.

/** A client_id of the brand data (themes/data/clients.ts). */
const knownClientId = queryValue.check(z.refine((clientId) => serviceIdForClientId(clientId) !== undefined));
const resetQuery = z.object({ client_id: knownClientId });
/** The reset and initiation mails' links carry client_id, code and username. */
const linkQuery = z.object({ client_id: knownClientId, code: queryValue, username: queryValue });

/**
 * A screen of this journey for both of its rows: the GET's checked query (the auth request is then forgotten),
 * or the same fields of the POSTed form. `accept` refuses parameters that fit the schema but not the request.
 */
function linkScreen<Q extends z.ZodMiniType>(
  query: Q,
  page: (params: z.infer<Q>) => ReactElement,
  accept: (c: AppContext, params: z.infer<Q>) => boolean = () => true,
): { query: Q; screen: ScreenLoader<z.infer<Q>, z.infer<Q> | undefined> } {
  return {
    query,
    screen: async (c, checked) => {
      let params = checked;
      if (params === undefined) {
        const posted = query.safeParse(await c.req.parseBody());
        if (!posted.success) return undefined;
        params = posted.data;
      } else {
        forgetAuthRequest(c);
      }
      return accept(c, params) ? { state: params, page: page(params) } : undefined;
    },
  };
}

const sendMailPath = (clientId: string) => `/resetPassword/sendMail?${new URLSearchParams({ client_id: clientId })}`;
const resetPath = (clientId: string) => `/resetPassword?${new URLSearchParams({ client_id: clientId })}`;

/**
 * How long the e-mail POST takes, whoever the address belongs to (RESET_ANSWER_MS, docs/configuration.md). The
 * upstream does more for a known address (a code, a mail) than for an unknown one, so answering when it answers
 * would tell the two apart. The site answers this long after the form arrived: with the upstream's failure when it
 * failed by then (maintenance is not about one address), else with the mail-sent page while a slower call finishes
 * in the background. Longer than the upstream needs for a mail (the emulator: a few ms; a hosted provider: a few
 * hundred), so its failures are almost always known in time.
 */
export const DEFAULT_RESET_ANSWER_MS = 1000;
/** The longest fixed time taken: a longer one is a mistake (a huge one would overflow the timer and answer at once). */
const MAX_RESET_ANSWER_MS = 60_000;

/**
 * RESET_ANSWER_MS as the site applies it: a whole number of milliseconds up to a minute, else the default. `0`
 * means no fixed time (answer with the upstream's outcome when it comes), which only the dev environment may ask for
 * (the workerd tests do): everywhere else no value below the default is taken, so that no setting can make known
 * and unknown addresses answer at different times.
 */
export function resetAnswerMs(env: { APP_ENV?: string | undefined; RESET_ANSWER_MS?: string | undefined }): number {
  const text = env.RESET_ANSWER_MS?.trim() ?? "";
  const valid = /^\d+$/.test(text) && Number(text) <= MAX_RESET_ANSWER_MS;
  const ms = valid ? Number(text) : DEFAULT_RESET_ANSWER_MS;
  return env.APP_ENV === "dev" ? ms : Math.max(ms, DEFAULT_RESET_ANSWER_MS);
}

async function answeredAtFixedTime(
  c: AppContext,
  call: Promise<Outcome<unknown>>,
): Promise<Outcome<unknown> | undefined> {
  const answerMs = resetAnswerMs(c.env);
  // Dev only (resetAnswerMs): no fixed time, the upstream's outcome when it comes.
  if (answerMs === 0) return call;
  const answerTime = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), answerMs));
  const first = await Promise.race([call, answerTime]);
  if (first === undefined) {
    const requestId = c.get("requestId");
    c.executionCtx.waitUntil(
      call.then(
        (late) => logEvent(late.ok ? "info" : "warn", "reset_mail_late", { requestId, status: late.status }),
        (error: unknown) => logEvent("error", "reset_mail_failed", { requestId, message: String(error) }),
      ),
    );
    return undefined;
  }
  await answerTime;
  return first;
}

const resetPage = linkScreen(resetQuery, (params) => <ResetPassword clientId={params.client_id} />);

/** SPEC §2 ResetPassword: the address the link is mailed to; known and unknown addresses get the same answer. */
export const resetPassword = {
  ...formStep({
    screen: resetPage.screen,
    form: () => z.object({ email: ruleField("email") }),
    subject: ({ form }) => normalisedSubject(form.email),
    submit: async (c, { state, form, show }) => {
      const outcome = await answeredAtFixedTime(c, passwordForgot(c, state.client_id, form.email, false));
      if (outcome && !outcome.ok) return show(failure(outcome));
      return c.redirect(sendMailPath(state.client_id), 303);
    },
  }),
  // Last: the GET row needs the loader's query-taking type, which formStep narrows.
  ...resetPage,
};

/** SPEC §2 ResetPasswordSendMail: valid 60 minutes, with the help modal for mail that does not arrive. */
export const resetMailSent = linkScreen(resetQuery, () => <ResetPasswordSendMail />);

/** The app the client's brand registered (its first https redirect URI's origin); never a URL from the request. */
function registeredAppUrl(clientId: string): string | undefined {
  const https = registeredRedirectUris(clientId).find((uri) => uri.startsWith("https://"));
  return https ? `${new URL(https).origin}/` : undefined;
}

type LinkParams = z.infer<typeof linkQuery>;

/** SPEC §2 new-password pages: the link's code sets the new password; its client must be the path's service. */
function newPassword(variant: NewPasswordVariant) {
  const screen = linkScreen(
    linkQuery,
    (params: LinkParams) => (
      <NewPassword variant={variant} clientId={params.client_id} code={params.code} username={params.username} />
    ),
    (c, params) => serviceIdForClientId(params.client_id) === c.get("brand").id,
  );
  return {
    ...formStep({
      screen: screen.screen,
      // SPEC §5: reset and initiation name the rule a password breaks.
      form: (c: AppContext) => z.object({ newPassword: ruleField("password", brandRules(c)) }),
      // The code is guessable (6 digits): counted per account, however its login ID is typed.
      subject: ({ state }) => normalisedSubject(state.username),
      submit: async (c, { state, form, show }) => {
        const outcome = await passwordConfirm(c, state.client_id, state.username, form.newPassword, state.code);
        if (outcome.ok) {
          const done = variant === "forgotPassword" ? "passwordReset" : "passwordInitiated";
          return show({ modal: { key: done, href: registeredAppUrl(state.client_id) } });
        }
        if (
          isRefusal(outcome) &&
          (outcome.problem.type === "invalid_code" || outcome.problem.type === "expired_code")
        ) {
          const refused = outcome.problem.type === "expired_code" ? "resetLinkExpired" : "resetLinkInvalid";
          return show({ modal: { key: refused, href: resetPath(state.client_id) } });
        }
        return show(failure(outcome));
      },
    }),
    ...screen,
  };
}

export const forgotPassword = newPassword("forgotPassword");
export const initiatePassword = newPassword("initiatePassword");
