import { NotFound } from "../pages/NotFound";
import { maintenanceOn } from "./middleware/maintenance";
import { errorPage, renderPage } from "./render";
import { bare, endpoint, form, notFound, type RouteEntry, screen } from "./routeKinds";
import { appleAppSiteAssociation, assetLinks } from "./routes/associationFiles";
import { callbackQuery, receiveCallback } from "./routes/callback";
import { changeEmail, changeEmailResult, emailChangeLinkQuery, followChangeEmailLink } from "./routes/changeEmail";
import { changePassword } from "./routes/changePassword";
import { forcedPassword } from "./routes/changePasswordInForceChangePassword";
import { consent, consentQuery, showConsent } from "./routes/consent";
import { enter, entryQuery, type FirstScreens, startForBrand } from "./routes/entry";
import { showGallery } from "./routes/gallery";
import { reportIslandCrash } from "./routes/islandReport";
import { logoutQuery, signOut, signOutForm } from "./routes/logout";
import {
  mfaSetup,
  skipMfaSetup,
  smsConfirm,
  smsSend,
  smsSetup,
  smsWarning,
  smsWarningScreen,
  totpConfirm,
  totpSetup,
} from "./routes/mfaSetup";
import {
  passkeySetup,
  passkeySetupCode,
  passkeySetupQuery,
  passkeySetupResult,
  passkeySetupStart,
  passkeySetupVerify,
} from "./routes/mfaSetupPasskey";
import {
  approveOperation,
  approveWithCode,
  approveWithPassword,
  brandStartQuery,
  cancelOperation,
  openPushedRequest,
  operationConfirmation,
  operationPasskeyOptions,
} from "./routes/operations";
import { enrolment, enrolmentCode, enrolmentLater, enrolmentResult, enrolmentVerify } from "./routes/passkeyEnrolment";
import {
  addCodeStep,
  addStep,
  addVerifyStep,
  deleteStep,
  passkeysQuery,
  registrationOptions,
  renameStep,
  showPasskeys,
} from "./routes/passkeys";
import { answerPasswordRange } from "./routes/passwordRange";
import { registerEmail, sendCode } from "./routes/registerEmail";
import {
  forgotPassword,
  initiatePassword,
  newPasswordQuery,
  resetMailSent,
  resetPassword,
} from "./routes/resetPassword";
import { restartAuthorization } from "./routes/restart";
import { forgetStep, showSecurity, signOutOthersStep, signOutStep } from "./routes/security";
import { passkeyOptions, signIn, signInPasskey } from "./routes/signIn";
import { resendDeviceCode, signInDevice } from "./routes/signInDevice";
import { signInMfa } from "./routes/signInMfa";
import { backToEmail, checkEmail, confirmMail, inputPassword, resendCode } from "./routes/signUp";
import { relayAllowedCall, relayToEmulator } from "./routes/upstreamProxy";

const inPath = { pathBrand: true } as const;

/** The screens the app's start answers itself, no redirect before the form (routes/entry.tsx). */
const firstScreens: FirstScreens = { signIn: signIn.screen, signUp: checkEmail.screen };

/**
 * The one route table: every path and method the site answers, in product §2 order. The kind of a row
 * (routeKinds.tsx) gives it its checks: `screen` a GET page (query, journey state), `form` its POST (form body,
 * journey state, fields by the shared rules), `endpoint` a GET that acts, `bare` no page middleware. Every row
 * is counted in a rate-limit class (worker/rateLimit.ts): `read` unless it says `credential`, `code`, `mail` or `report`.
 * Hono tries the rows in order.
 */
export const routeTable: readonly RouteEntry[] = [
  // The change-e-mail mails' links (product §7 GET user/email/confirm) are a page of the site, not a proxied call:
  // the site asks the upstream and lands on the result page (routes/changeEmail.tsx). Before the proxy's row.
  endpoint(
    "/auth/v1/user/email/confirm",
    "changeEmailLink",
    { query: emailChangeLinkQuery, rateLimit: "mail" },
    followChangeEmailLink,
  ),
  // The narrow proxy the app and OAuth2 clients use (architecture §3). First: '/oauth2/auth' would otherwise
  // be read as '/{serviceId}/auth' with a brand 'oauth2'.
  bare("ALL", "/auth/*", "identityProxy", relayAllowedCall),
  bare("ALL", "/oauth2/*", "oauth2Proxy", relayAllowedCall, "code"),
  // The apps' association files (docs/passkeys.md, "The brands' apps"): the worker's own, before the proxy's row.
  bare("GET", "/.well-known/apple-app-site-association", "appleAppSiteAssociation", appleAppSiteAssociation),
  bare("GET", "/.well-known/assetlinks.json", "assetLinks", assetLinks),
  bare("ALL", "/.well-known/*", "discoveryProxy", relayAllowedCall),

  // product §2 entry and callback (architecture §4); restarting the app's authorization from its stored request.
  endpoint("/restart", "restartAuthorization", {}, restartAuthorization),
  // The app's start asks the authorization endpoint itself, so it is counted as the proxied endpoint was: `code`.
  endpoint("/", "entry", { query: entryQuery, rateLimit: "code" }, (c, query) => enter(c, query, firstScreens)),
  // A pushed request (docs/operations.md "On the site") starts here too, with its client_id and request_uri alone.
  endpoint("/:serviceId/auth", "authRedirect", { ...inPath, query: brandStartQuery, rateLimit: "code" }, (c, query) =>
    query.request_uri === undefined ? startForBrand(c, query, firstScreens) : openPushedRequest(c, query),
  ),
  endpoint(
    "/callback",
    "callback",
    { query: callbackQuery, parameterModal: "callbackParameterError" },
    receiveCallback,
  ),

  // Sign-up.
  screen("/signUp/checkEmail", "signUpCheckEmail", checkEmail),
  form("/signUp/checkEmail", "signUpCheckEmail", checkEmail, { rateLimit: "mail" }),
  screen("/signUp/inputPassword", "signUpInputPassword", inputPassword),
  form("/signUp/inputPassword", "signUpInputPassword", inputPassword, { rateLimit: "mail" }),
  form("/signUp/inputPassword/back", "signUpBackToEmail", backToEmail),
  screen("/signUp/confirmMail", "signUpConfirmMail", confirmMail),
  form("/signUp/confirmMail", "signUpConfirmMail", confirmMail, { rateLimit: "code" }),
  form("/signUp/confirmMail/resend", "signUpResendCode", resendCode, { rateLimit: "mail" }),

  // Sign-in, second factor, forced new password.
  screen("/signIn", "signIn", signIn),
  form("/signIn", "signIn", signIn, { rateLimit: "credential" }),
  // Passkey sign-in (docs/passkeys.md): the ceremony's options for the island (JSON), then the signed credential.
  bare("POST", "/signIn/passkey/options", "signInPasskeyOptions", passkeyOptions),
  form("/signIn/passkey", "signInPasskey", signInPasskey, { rateLimit: "credential" }),
  // The enrolment after a password sign-in (docs/passkeys.md): the code mailed, the code, the new passkey, or later.
  screen("/signIn/passkey/enrol", "passkeyEnrolment", enrolment),
  form("/signIn/passkey/enrol/code", "passkeyEnrolmentCode", enrolmentCode, { rateLimit: "mail" }),
  form("/signIn/passkey/enrol/verify", "passkeyEnrolmentVerify", enrolmentVerify, { rateLimit: "code" }),
  form("/signIn/passkey/enrol", "passkeyEnrolment", enrolmentResult, { rateLimit: "credential" }),
  form("/signIn/passkey/enrol/later", "passkeyEnrolmentLater", enrolmentLater),
  // The creation options of this browser's registration ceremony, for the island (JSON, same origin).
  bare("POST", "/passkey/registration/options", "passkeyRegistrationOptions", registrationOptions),
  screen("/signIn/mfa", "signInMfa", signInMfa),
  form("/signIn/mfa", "signInMfa", signInMfa, { rateLimit: "code" }),
  // A new device's code (docs/devices.md), after the password and every other step; counted per confirmation session.
  screen("/signIn/device", "signInDevice", signInDevice),
  form("/signIn/device", "signInDevice", signInDevice, { rateLimit: "code" }),
  form("/signIn/device/resend", "signInDeviceResend", resendDeviceCode, { rateLimit: "mail" }),
  screen("/changePasswordInForceChangePassword", "forcedPassword", forcedPassword),
  form("/changePasswordInForceChangePassword", "forcedPassword", forcedPassword, { rateLimit: "credential" }),

  // An operation approved by passkey (docs/operations.md "On the site"), shown by the app's start above: the screen
  // again, the island's ceremony options (JSON), the signed approval (a credential try, as a passkey sign-in), cancel.
  screen("/operation", "operationConfirmation", operationConfirmation),
  bare("POST", "/operation/options", "operationPasskeyOptions", operationPasskeyOptions),
  form("/operation", "operationApproval", approveOperation, { rateLimit: "credential" }),
  // The brand's temporary alternative: the password (a credential try per login ID), then the code asked next.
  form("/operation/password", "operationPassword", approveWithPassword, { rateLimit: "credential" }),
  form("/operation/code", "operationCode", approveWithCode, { rateLimit: "code" }),
  form("/operation/cancel", "operationCancel", cancelOperation),

  // Consent of the partner service: the link's challenge moves into a cookie, then the screen.
  endpoint("/:serviceId/consent", "consent", { ...inPath, query: consentQuery }, showConsent),
  form("/:serviceId/consent", "consent", consent, inPath),

  // Password reset and initiation (reached from mail links): the mail POST per address, the code POSTs per account.
  // A mailed link's GET moves its code into a cookie, then its page (both read: the GET checks no code).
  screen("/resetPassword", "resetPassword", resetPassword),
  form("/resetPassword", "resetPassword", resetPassword, { rateLimit: "mail" }),
  screen("/resetPassword/sendMail", "resetPasswordSendMail", resetMailSent),
  endpoint("/:serviceId/forgotPassword", "forgotPassword", { ...inPath, query: newPasswordQuery }, forgotPassword.open),
  form("/:serviceId/forgotPassword", "forgotPassword", forgotPassword, { ...inPath, rateLimit: "code" }),
  endpoint(
    "/:serviceId/initiatePassword",
    "initiatePassword",
    { ...inPath, query: newPasswordQuery },
    initiatePassword.open,
  ),
  form("/:serviceId/initiatePassword", "initiatePassword", initiatePassword, { ...inPath, rateLimit: "code" }),

  // Account changes for a signed-in user (the tokens cookie's bearer token); subjects: the user, or the address mailed.
  screen("/registerEmail", "registerEmail", registerEmail),
  form("/registerEmail/sendCode", "registerEmailSendCode", sendCode, { rateLimit: "mail" }),
  form("/registerEmail", "registerEmail", registerEmail, { rateLimit: "code" }),
  screen("/changePassword", "changePassword", changePassword),
  form("/changePassword", "changePassword", changePassword, { rateLimit: "credential" }),
  screen("/changeEmail", "changeEmail", changeEmail),
  form("/changeEmail", "changeEmail", changeEmail, { rateLimit: "mail" }),
  screen("/:serviceId/changeEmail", "changeEmailResult", { ...inPath, ...changeEmailResult }),
  // The user's passkeys (docs/passkeys.md): a recent sign-in first; deleting mails the account, adding needs a code.
  endpoint("/passkeys", "passkeys", { query: passkeysQuery }, showPasskeys),
  form("/passkeys/rename", "passkeysRename", renameStep),
  form("/passkeys/delete", "passkeysDelete", deleteStep, { rateLimit: "mail" }),
  form("/passkeys/add/code", "passkeysAddCode", addCodeStep, { rateLimit: "mail" }),
  form("/passkeys/add/verify", "passkeysAddVerify", addVerifyStep, { rateLimit: "code" }),
  form("/passkeys/add", "passkeysAdd", addStep, { rateLimit: "credential" }),
  // The user's sign-ins and devices (docs/devices.md): signing a device out or forgetting this one needs a recent
  // sign-in, and counts as a credential try of the signed-in user.
  endpoint("/security", "security", {}, showSecurity),
  form("/security/signout", "securitySignOut", signOutStep, { rateLimit: "credential" }),
  form("/security/signout-others", "securitySignOutOthers", signOutOthersStep, { rateLimit: "credential" }),
  form("/security/forget", "securityForget", forgetStep, { rateLimit: "credential" }),

  // Two-factor setup. The TOTP page requests the secret (the upstream answers a repeated request with the pending
  // one, and sends nothing: read); codes are `code`, the SMS send `mail`; each counted per signed-in user.
  screen("/mfa/setup", "mfaSetup", mfaSetup),
  form("/mfa/setup/skip", "mfaSetupSkip", skipMfaSetup),
  screen("/mfa/setup/TOTP", "mfaSetupTotp", totpSetup),
  form("/mfa/setup/TOTP", "mfaSetupTotp", totpConfirm, { rateLimit: "code" }),
  screen("/mfa/setup/SMS", "mfaSetupSms", smsSetup),
  form("/mfa/setup/SMS", "mfaSetupSms", smsConfirm, { rateLimit: "code" }),
  form("/mfa/setup/SMS/warning", "mfaSetupSmsWarning", smsWarning),
  screen("/mfa/setup/SMS/warning", "mfaSetupSmsWarning", smsWarningScreen),
  form("/mfa/setup/SMS/sendCode", "mfaSetupSmsSend", smsSend, { rateLimit: "mail" }),
  // A passkey as the second factor (docs/passkeys.md, "Passkey first"): starting may mail a code, as sending one does.
  screen("/mfa/setup/passkey", "mfaSetupPasskey", { query: passkeySetupQuery, ...passkeySetup }),
  form("/mfa/setup/passkey/start", "mfaSetupPasskeyStart", passkeySetupStart, { rateLimit: "mail" }),
  form("/mfa/setup/passkey/code", "mfaSetupPasskeyCode", passkeySetupCode, { rateLimit: "mail" }),
  form("/mfa/setup/passkey/verify", "mfaSetupPasskeyVerify", passkeySetupVerify, { rateLimit: "code" }),
  form("/mfa/setup/passkey", "mfaSetupPasskey", passkeySetupResult, { rateLimit: "credential" }),

  // Sign-out (architecture §8): a link (GET) or a form (POST).
  endpoint("/logout", "logout", { query: logoutQuery }, signOut),
  form("/logout", "logout", signOutForm),

  // product §2 error page; health; the emulator's developer endpoints (dev only); every other path.
  endpoint("/error", "error", {}, (c) => errorPage(c, {})),
  bare("GET", "/health", "health", async (c) => c.json({ status: maintenanceOn(c.env) ? "maintenance" : "ok" })),
  // An island's crash in the browser (islands/client.tsx), for the logs and error reporting.
  bare("POST", "/report/island", "islandReport", reportIslandCrash, "report"),
  // The password field's leaked-password check (docs/security.md, "Leaked passwords"), asked on blur and submit.
  bare("GET", "/password/range/:prefix", "passwordRange", answerPasswordRange),
  bare("ALL", "/__emulator/*", "emulatorDev", relayToEmulator),
  // Dev only (__DEV_ROUTES__, vite.config.ts): every brand's sign-in card side by side; production builds drop it.
  ...(__DEV_ROUTES__ ? [endpoint("/__gallery", "gallery", {}, showGallery)] : []),
  notFound("notFound", (c) => renderPage(c, <NotFound />, { status: 404 })),
];
