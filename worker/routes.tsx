import { ErrorPage } from "../pages/ErrorPage";
import { NotFound } from "../pages/NotFound";
import { emptyForm } from "./formFields";
import { clientIdQuery } from "./queryParams";
import { renderPage } from "./render";
import { bare, endpoint, form, notFound, type RouteEntry, screen } from "./routeKinds";
import { callbackQuery, receiveCallback } from "./routes/callback";
import { changeEmailResultQuery, changeEmailResultScreen, changeEmailScreen } from "./routes/changeEmail";
import { changePasswordScreen } from "./routes/changePassword";
import {
  forcedPasswordForm,
  forcedPasswordScreen,
  submitForcedPassword,
} from "./routes/changePasswordInForceChangePassword";
import { consentQuery, consentScreen, showConsent, submitConsent } from "./routes/consent";
import { enter, entryQuery, startForTenant } from "./routes/entry";
import { mfaSetupScreen, skipMfaSetup, skipScreen, smsSetupScreen, totpSetupScreen } from "./routes/mfaSetup";
import { registerEmailScreen } from "./routes/registerEmail";
import { newPasswordQuery, newPasswordScreen, resetMailSentScreen, resetPasswordScreen } from "./routes/resetPassword";
import { signInForm, signInScreen, submitSignIn } from "./routes/signIn";
import { signInMfaForm, signInMfaScreen, submitSignInMfa } from "./routes/signInMfa";
import * as signUp from "./routes/signUp";
import { relayAllowedCall, relayToEmulator } from "./routes/upstreamProxy";
import { appAuthQuerySchema } from "./session/authRequest";

/**
 * The one route table: every path and method the site answers, in SPEC §2 order, with the kind that gives it its
 * checks (routeKinds.tsx), its journey state and form, and its handler. Hono tries the rows in order.
 */
export const routeTable: readonly RouteEntry[] = [
  // The narrow proxy the app and OAuth2 clients use (ARCHITECTURE §3). First: '/oauth2/auth' would otherwise
  // be read as '/{tenantId}/auth' with a tenant 'oauth2'.
  bare("ALL", "/auth/*", "identityProxy", relayAllowedCall),
  bare("ALL", "/oauth2/*", "oauth2Proxy", relayAllowedCall),
  bare("ALL", "/.well-known/*", "discoveryProxy", relayAllowedCall),

  // SPEC §2 entry and callback (ARCHITECTURE §4).
  endpoint("/", "entry", { query: entryQuery }, enter),
  endpoint("/:tenantId/auth", "authRedirect", { pathTenant: true, query: appAuthQuerySchema }, startForTenant),
  endpoint(
    "/callback",
    "callback",
    { query: callbackQuery, parameterModal: "callbackParameterError" },
    receiveCallback,
  ),

  // Sign-up.
  screen("/signUp/checkEmail", "signUpCheckEmail", { screen: signUp.checkEmailScreen }),
  form(
    "/signUp/checkEmail",
    "signUpCheckEmail",
    { screen: signUp.checkEmailScreen, form: signUp.checkEmailForm },
    signUp.submitCheckEmail,
  ),
  screen("/signUp/inputPassword", "signUpInputPassword", { screen: signUp.inputPasswordScreen }),
  form(
    "/signUp/inputPassword",
    "signUpInputPassword",
    { screen: signUp.inputPasswordScreen, form: signUp.inputPasswordForm },
    signUp.submitInputPassword,
  ),
  form(
    "/signUp/inputPassword/back",
    "signUpBackToEmail",
    { screen: signUp.signUpStateScreen, form: emptyForm },
    signUp.submitBackToEmail,
  ),
  screen("/signUp/confirmMail", "signUpConfirmMail", { screen: signUp.confirmMailScreen }),
  form(
    "/signUp/confirmMail",
    "signUpConfirmMail",
    { screen: signUp.confirmMailScreen, form: signUp.confirmMailForm },
    signUp.submitConfirmMail,
  ),
  form(
    "/signUp/confirmMail/resend",
    "signUpResendCode",
    { screen: signUp.confirmMailScreen, form: emptyForm },
    signUp.submitResend,
  ),

  // Sign-in, second factor, forced new password.
  screen("/signIn", "signIn", { screen: signInScreen }),
  form("/signIn", "signIn", { screen: signInScreen, form: signInForm }, submitSignIn),
  screen("/signIn/mfa", "signInMfa", { screen: signInMfaScreen }),
  form("/signIn/mfa", "signInMfa", { screen: signInMfaScreen, form: signInMfaForm }, submitSignInMfa),
  screen("/changePasswordInForceChangePassword", "forcedPassword", { screen: forcedPasswordScreen }),
  form(
    "/changePasswordInForceChangePassword",
    "forcedPassword",
    { screen: forcedPasswordScreen, form: forcedPasswordForm },
    submitForcedPassword,
  ),

  // Consent of the partner service.
  endpoint("/:tenantId/consent", "consent", { pathTenant: true, query: consentQuery }, showConsent),
  form("/:tenantId/consent", "consent", { pathTenant: true, screen: consentScreen, form: emptyForm }, submitConsent),

  // Password reset and initiation.
  screen("/resetPassword", "resetPassword", { query: clientIdQuery, screen: resetPasswordScreen }),
  screen("/resetPassword/sendMail", "resetPasswordSendMail", { query: clientIdQuery, screen: resetMailSentScreen }),
  screen("/:tenantId/forgotPassword", "forgotPassword", {
    pathTenant: true,
    query: newPasswordQuery,
    screen: newPasswordScreen("forgotPassword"),
  }),
  screen("/:tenantId/initiatePassword", "initiatePassword", {
    pathTenant: true,
    query: newPasswordQuery,
    screen: newPasswordScreen("initiatePassword"),
  }),

  // Account changes for a signed-in user.
  screen("/registerEmail", "registerEmail", { screen: registerEmailScreen }),
  screen("/changePassword", "changePassword", { screen: changePasswordScreen }),
  screen("/changeEmail", "changeEmail", { screen: changeEmailScreen }),
  screen("/:tenantId/changeEmail", "changeEmailResult", {
    pathTenant: true,
    query: changeEmailResultQuery,
    screen: changeEmailResultScreen,
  }),

  // Two-factor setup.
  screen("/mfa/setup", "mfaSetup", { screen: mfaSetupScreen }),
  form("/mfa/setup/skip", "mfaSetupSkip", { screen: skipScreen, form: emptyForm }, skipMfaSetup),
  screen("/mfa/setup/TOTP", "mfaSetupTotp", { screen: totpSetupScreen }),
  screen("/mfa/setup/SMS", "mfaSetupSms", { screen: smsSetupScreen }),

  // SPEC §2 error page; health; the emulator's developer endpoints (dev only); every other path.
  endpoint("/error", "error", {}, (c) => renderPage(c, <ErrorPage />)),
  bare("GET", "/health", "health", async (c) => c.json({ status: "ok" })),
  bare("ALL", "/__emulator/*", "emulatorDev", relayToEmulator),
  notFound("notFound", (c) => renderPage(c, <NotFound />, { status: 404 })),
];
