import { Hono } from "hono";
import { z } from "zod";
import { ErrorPage } from "../../pages/ErrorPage";
import { ParameterError } from "../../pages/ParameterError";
import type { AppContext, AppEnv } from "../context";
import { knownPathTenant } from "../pathTenant";
import { challengeValue, queryValue, scopeValue, stateValue } from "../queryParams";
import { renderPage } from "../render";
import { writeSealed } from "../session/cookies";
import { viewSchema, type AuthRequest } from "../session/state";

export const entryRoutes = new Hono<AppEnv>();

/** The OAuth2 server's login URL: `/?login_challenge&client_id&view` (SPEC §2 entry, §5). */
const loginUrlQuery = z.object({
  login_challenge: challengeValue,
  client_id: queryValue,
  view: viewSchema,
});

/**
 * The app's query that starts an authorization, at /{tenantId}/auth and at / without a login_challenge
 * (SPEC §2 entry, ARCHITECTURE §4). The bounds are those of the auth-request cookie that stores it.
 */
export const appAuthQuery = z.object({
  client_id: queryValue,
  view: viewSchema,
  app_url: stateValue,
  state: stateValue,
  scope: scopeValue.optional(),
  callback_path: z.string().max(256).optional(),
  code_challenge: z.string().min(1).max(128),
  code_challenge_method: z.enum(["S256", "plain"]),
  prompt: queryValue.optional(),
  hashed_user_id: queryValue.optional(),
  autoFillUserName: queryValue.optional(),
  sign_in_mode: queryValue.optional(),
});

/** The callback of the site's own authorization (SPEC §2 callback screen). */
const callbackQuery = z.object({
  code: challengeValue,
  state: stateValue,
  scope: scopeValue.optional(),
});

/**
 * Restarting the app's authorization from a stored auth request (the sign-up 'fix the e-mail' link, the SMS
 * 'start over'): the same query the app sent to /{tenantId}/auth, built from the names `appAuthQuery` reads.
 */
export function authStartHref(authRequest: AuthRequest): string {
  const query = new URLSearchParams({
    client_id: authRequest.clientId,
    view: authRequest.view,
    app_url: authRequest.appUrl,
    state: authRequest.state,
    scope: authRequest.scope,
    callback_path: authRequest.callbackPath,
    code_challenge: authRequest.codeChallenge,
    code_challenge_method: authRequest.codeChallengeMethod,
  });
  const optional: Array<[string, string | undefined]> = [
    ["prompt", authRequest.prompt],
    ["hashed_user_id", authRequest.hashedUserId],
    ["autoFillUserName", authRequest.autoFillUserName],
    ["sign_in_mode", authRequest.signInMode],
  ];
  for (const [name, value] of optional) if (value) query.set(name, value);
  return `/${encodeURIComponent(authRequest.serviceId)}/auth?${query}`;
}

/**
 * The authorization start (store the auth request, 302 to the OAuth2 server) and the code exchange at /callback
 * are not connected yet: a valid request gets the unexpected-error page. The lead replaces this in issue 4.
 */
function notYetConnected(c: AppContext) {
  return renderPage(c, <ErrorPage modal="unexpectedError" />, 503);
}

entryRoutes.get("/", async (c) => {
  const query = c.req.query();
  if (query.login_challenge === undefined && appAuthQuery.safeParse(query).success) return notYetConnected(c);
  const parsed = loginUrlQuery.safeParse(query);
  if (!parsed.success) return renderPage(c, <ParameterError />, 400);
  const { login_challenge: loginChallenge, client_id: clientId, view } = parsed.data;
  // SPEC §2: the sign-up view keeps the challenge for sign-up; every other view signs in first.
  if (view === "signUp") {
    await writeSealed(c, "signUp", { loginChallenge });
    return c.redirect("/signUp/checkEmail", 303);
  }
  await writeSealed(c, "signIn", { loginChallenge });
  return c.redirect(`/signIn?${new URLSearchParams({ client_id: clientId })}`, 303);
});

entryRoutes.get("/:tenantId/auth", knownPathTenant(), (c) => {
  if (!appAuthQuery.safeParse(c.req.query()).success) return renderPage(c, <ParameterError />, 400);
  return notYetConnected(c);
});

entryRoutes.get("/callback", (c) => {
  if (!callbackQuery.safeParse(c.req.query()).success) return renderPage(c, <ParameterError modal="callbackParameterError" />, 400);
  return notYetConnected(c);
});
