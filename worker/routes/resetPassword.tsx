import type { ReactElement } from "react";
import { z } from "zod/mini";
import { NewPassword, type NewPasswordVariant } from "../../pages/NewPassword";
import { ResetPassword } from "../../pages/ResetPassword";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import { registeredRedirectUris, serviceIdForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { forgetAuthRequest } from "../flow/forgetAuthRequest";
import { loginContext } from "../flow/loginContext";
import { ruleField } from "../formFields";
import { type CallResult, passwordConfirm, passwordForgot } from "../identity/client";
import { failure, isRefusal } from "../identity/outcomes";
import { logEvent } from "../log";
import { queryValue } from "../queryParams";
import { normalisedSubject } from "../rateLimit";
import { parameterProblem, renderPage } from "../render";
import { formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";

// product §2 password reset and initiation: e-mail → mail sent → the mailed link's new-password page. The pages are
// reached outside any app's authorization (a link, a mail), so a GET first forgets the stored auth request; the
// brand comes from client_id, which must be one of the brand data's (else the parameter modal, history back).
// A mailed link's GET keeps the link in a sealed cookie and redirects to its page with client_id alone, so that no
// page holds the code in its address (docs/journeys.md, the reset link). The forms carry the link's parameters
// as hidden fields, checked again on every POST.

/** A client_id of the brand data (themes/data/clients.ts). */
const knownClientId = queryValue.check(z.refine((clientId) => serviceIdForClientId(clientId) !== undefined));
const resetQuery = z.object({ client_id: knownClientId });
/** The reset and initiation mails' links carry client_id, code and username. */
const linkQuery = z.object({ client_id: knownClientId, code: queryValue, username: queryValue });
/**
 * The new-password pages' query: the mailed link, or the page it redirects to (client_id alone, the link in its
 * cookie). A code without a username, or the reverse, is a broken link.
 */
export const newPasswordQuery = z
  .object({ client_id: knownClientId, code: z.optional(queryValue), username: z.optional(queryValue) })
  .check(z.refine((query) => (query.code === undefined) === (query.username === undefined)));

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
const DEFAULT_RESET_ANSWER_MS = 1000;
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
  call: Promise<CallResult<unknown>>,
): Promise<CallResult<unknown> | undefined> {
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

/** product §2 ResetPassword: the address the link is mailed to; known and unknown addresses get the same answer. */
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

/** product §2 ResetPasswordSendMail: valid 60 minutes, with the help modal for mail that does not arrive. */
export const resetMailSent = linkScreen(resetQuery, () => <ResetPasswordSendMail />);

/** The app the client's brand registered (its first https redirect URI's origin); never a URL from the request. */
function registeredAppUrl(clientId: string): string | undefined {
  const https = registeredRedirectUris(clientId).find((uri) => uri.startsWith("https://"));
  return https ? `${new URL(https).origin}/` : undefined;
}

type LinkParams = z.infer<typeof linkQuery>;

/** The link is spent, or refused for good (a wrong, used or expired code): its cookie goes, if it holds this link. */
async function forgetLink(c: AppContext, link: LinkParams): Promise<void> {
  const kept = await readSealed(c, "resetLink");
  if (kept?.clientId === link.client_id && kept.code === link.code && kept.username === link.username)
    clearSealed(c, "resetLink");
}

/** product §2 new-password pages: the link's code sets the new password; its client must be the path's brand. */
function newPassword(variant: NewPasswordVariant) {
  const page = (params: LinkParams) => (
    <NewPassword variant={variant} clientId={params.client_id} code={params.code} username={params.username} />
  );
  const ofThisBrand = (c: AppContext, clientId: string) => serviceIdForClientId(clientId) === c.get("brand").id;
  const screen = linkScreen(linkQuery, page, (c, params) => ofThisBrand(c, params.client_id));

  /**
   * The link's GET keeps the link in its cookie (a second link replaces it) and redirects to the same page with
   * client_id alone, which shows the form from the cookie: a page whose address holds a code is served
   * `no-referrer`, under which an engine without Fetch Metadata (Safari < 16.4) posts `Origin: null`, and hono/csrf
   * refuses that. Without the cookie, or with another page's, client's or brand's link in it: the parameter modal.
   */
  async function open(c: AppContext, query: z.infer<typeof newPasswordQuery>): Promise<Response> {
    forgetAuthRequest(c);
    const { client_id: clientId, code, username } = query;
    if (code !== undefined && username !== undefined) {
      if (!ofThisBrand(c, clientId)) return parameterProblem(c);
      await writeSealed(c, "resetLink", { page: variant, clientId, code, username });
      return c.redirect(`/${c.get("brand").id}/${variant}?${new URLSearchParams({ client_id: clientId })}`, 303);
    }
    const link = await readSealed(c, "resetLink");
    if (link?.page !== variant || link.clientId !== clientId || !ofThisBrand(c, clientId)) return parameterProblem(c);
    return renderPage(c, page({ client_id: clientId, code: link.code, username: link.username }));
  }

  return {
    ...formStep({
      screen: screen.screen,
      // product §5: reset and initiation name the rule a password breaks.
      form: (rules) => z.object({ newPassword: ruleField("password", rules) }),
      // The code is guessable (6 digits): counted per account, however its login ID is typed.
      subject: ({ state }) => normalisedSubject(state.username),
      chosenPassword: ({ state, form }) => ({
        field: "newPassword",
        password: form.newPassword,
        identities: [state.username],
      }),
      submit: async (c, { state, form, show }) => {
        const context = await loginContext(c);
        const outcome = await passwordConfirm(
          c,
          state.client_id,
          state.username,
          form.newPassword,
          state.code,
          context,
        );
        if (outcome.ok) {
          await forgetLink(c, state);
          const done = variant === "forgotPassword" ? "passwordReset" : "passwordInitiated";
          return show({ modal: { key: done, href: registeredAppUrl(state.client_id) } });
        }
        if (
          isRefusal(outcome) &&
          (outcome.problem.type === "invalid_code" || outcome.problem.type === "expired_code")
        ) {
          await forgetLink(c, state);
          const refused = outcome.problem.type === "expired_code" ? "resetLinkExpired" : "resetLinkInvalid";
          return show({ modal: { key: refused, href: resetPath(state.client_id) } });
        }
        return show(failure(outcome));
      },
    }),
    open,
  };
}

export const forgotPassword = newPassword("forgotPassword");
export const initiatePassword = newPassword("initiatePassword");
