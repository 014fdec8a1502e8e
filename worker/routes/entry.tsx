import { Hono } from "hono";
import { z } from "zod";
import { ParameterError } from "../../pages/ParameterError";
import { brandForClientId } from "../../themes/brands";
import { type AppAuthorization, startAuthorization } from "../authorization";
import type { AppEnv } from "../context";
import { knownPathTenant } from "../pathTenant";
import { challengeValue, queryValue, scopeValue, stateValue } from "../queryParams";
import { renderPage } from "../render";
import { writeSealed } from "../session/cookies";
import { type AuthRequest, viewSchema } from "../session/state";

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

/** The app's query as the authorization start stores it. */
function appAuthorization(query: z.infer<typeof appAuthQuery>): AppAuthorization {
  return {
    clientId: query.client_id,
    view: query.view,
    appUrl: query.app_url,
    state: query.state,
    scope: query.scope,
    callbackPath: query.callback_path,
    codeChallenge: query.code_challenge,
    codeChallengeMethod: query.code_challenge_method,
    prompt: query.prompt,
    hashedUserId: query.hashed_user_id,
    autoFillUserName: query.autoFillUserName,
    signInMode: query.sign_in_mode,
  };
}

entryRoutes.get("/", async (c) => {
  const query = c.req.query();
  if (query.login_challenge === undefined) {
    const app = appAuthQuery.safeParse(query);
    // The app's start without a tenant in the path: the service comes from its client_id.
    const brand = app.success ? brandForClientId(app.data.client_id) : undefined;
    if (app.success && brand) return startAuthorization(c, brand, appAuthorization(app.data));
  }
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

entryRoutes.get("/:tenantId/auth", knownPathTenant(), async (c) => {
  const app = appAuthQuery.safeParse(c.req.query());
  if (!app.success || brandForClientId(app.data.client_id)?.id !== c.get("brand").id)
    return renderPage(c, <ParameterError />, 400);
  return startAuthorization(c, c.get("brand"), appAuthorization(app.data));
});
