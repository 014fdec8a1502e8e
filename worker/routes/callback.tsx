import { Hono } from "hono";
import { z } from "zod";
import { ErrorPage } from "../../pages/ErrorPage";
import { ParameterError } from "../../pages/ParameterError";
import type { MfaType } from "../../themes/schema";
import { appAuthorizeUrl, sha256Hex, siteCallbackUrl, tokenClaims } from "../authorization";
import type { AppContext, AppEnv } from "../context";
import { exchangeCode, type Profile, profile } from "../identity/client";
import { modalForFailure } from "../identity/outcomes";
import { challengeValue, scopeValue, stateValue } from "../queryParams";
import { renderPage } from "../render";
import { readSealed, writeSealed } from "../session/cookies";
import type { AuthRequest } from "../session/state";

// SPEC §2 callback and "After sign-in": the code of the site's own authorization becomes the tokens
// cookie, then the stored view decides where the user goes next (ARCHITECTURE §4 journey map).
export const callbackRoutes = new Hono<AppEnv>();

const callbackQuery = z.object({
  code: challengeValue,
  state: stateValue,
  scope: scopeValue.optional(),
});

const preferredToMfaType: Record<Profile["preferred_mfa_setting"], MfaType> = {
  totp: "TOTP",
  sms: "SMS",
  none: "NONE",
};

const parameterError = (c: AppContext) => renderPage(c, <ParameterError modal="callbackParameterError" />, 400);

async function afterSignIn(c: AppContext, authRequest: AuthRequest, accessToken: string): Promise<Response> {
  switch (authRequest.view) {
    case "signUp":
    case "mfaSetUp":
      return c.redirect("/mfa/setup", 303);
    case "passwordChange":
      return c.redirect("/changePassword", 303);
    case "emailChange":
      return c.redirect("/changeEmail", 303);
    default:
      break;
  }
  const brand = c.get("brand");
  // The partner service skips the e-mail-verified and MFA checks (SPEC §1).
  if (brand.consentTarget) return c.redirect(appAuthorizeUrl(authRequest, undefined), 302);
  const found = await profile(c, accessToken);
  if (!found.ok) return renderPage(c, <ErrorPage modal={modalForFailure(found)} />, 502);
  if (!found.data.email_verified) {
    await writeSealed(c, "authRequest", { ...authRequest, navigateMFASetupFlow: true });
    return c.redirect("/registerEmail", 303);
  }
  if (
    authRequest.navigateMFASetupFlow ||
    !brand.mfaTypes.includes(preferredToMfaType[found.data.preferred_mfa_setting])
  ) {
    return c.redirect("/mfa/setup", 303);
  }
  return c.redirect(appAuthorizeUrl(authRequest, undefined), 302);
}

callbackRoutes.get("/callback", async (c) => {
  const query = callbackQuery.safeParse(c.req.query());
  const authRequest = await readSealed(c, "authRequest");
  if (!query.success || !authRequest?.own || query.data.state !== authRequest.own.state) return parameterError(c);
  const exchanged = await exchangeCode(c, {
    clientId: authRequest.clientId,
    code: query.data.code,
    redirectUri: siteCallbackUrl(c),
    codeVerifier: authRequest.own.codeVerifier,
  });
  if (!exchanged.ok) return parameterError(c);
  const tokens = exchanged.data;
  const claims = tokenClaims(tokens.access_token);
  if (!claims) return renderPage(c, <ErrorPage modal="tokenExpired" />, 401);
  await writeSealed(c, "tokens", {
    accessToken: tokens.access_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    expiresAt: claims.exp,
    scope: tokens.scope ?? "",
    tokenType: tokens.token_type,
    hashedUserName: await sha256Hex(claims.username),
  });
  return afterSignIn(c, authRequest, tokens.access_token);
});
