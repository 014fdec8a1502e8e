import { z } from "zod/mini";
import { phoneForUpstream } from "../../forms/rules";
import { MfaSetup, MfaSetupDone } from "../../pages/MfaSetup";
import { MfaSetupSms, MfaSetupSmsWarning, SMS_WARNING_PATH } from "../../pages/MfaSetupSms";
import { MfaSetupTotp, type TotpSecretResult } from "../../pages/MfaSetupTotp";
import { brandById } from "../../themes/brands";
import type { AppContext } from "../context";
import { accountFailure } from "../flow/account";
import { appAuthorizeUrl } from "../flow/authorization";
import { otpauthUri } from "../flow/otpauthUri";
import { passkeyPolicy, webAuthnRefused } from "../flow/passkeys";
import { nextAfterSetup, signedIn, signedInScreen } from "../flow/signedIn";
import { emptyForm, ruleField } from "../formFields";
import { type CallResult, mfaConfirm, mfaSetupSms, mfaSetupTotp, profile, totpSecretCode } from "../identity/client";
import { renderPage, runsScript, type Show } from "../render";
import { formStep, type Refusal, type Screen, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import type { MfaSetupState, TokenState } from "../session/state";

// product §2/§4 MFA setup: only for a signed-in user (the tokens cookie); a missing token is the parameter problem
// (product §8) and no upstream call is made. The choice screen offers only the brand's allowed factors (product §6).
// The identity provider is the authority on "one setup request in flight" (emulator/README.md, Limits): a repeated
// TOTP request gets the pending secret again, a repeated SMS request is refused (setup_pending) and sends nothing.

/** Passkeys are on for the brand here and the app has not said its webview cannot use them (docs/passkeys.md). */
const offersPasskey = (c: AppContext) => passkeyPolicy(c.env, c.get("brand")) !== "off" && !webAuthnRefused(c);

export const mfaSetup = signedInScreen(async (c) => <MfaSetup passkey={offersPasskey(c)} />);

/** The same promise on every call: React's `use` must see one promise while the page streams. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    return loading;
  };
}

function shownSecret(c: AppContext, key: string, account: string | undefined): TotpSecretResult {
  return { secret: { key, account, otpauthUri: otpauthUri(c.get("brand"), account, key) } };
}

type IssuedSecret = { ok: true; shown: TotpSecretResult } | { ok: false; failed: CallResult<unknown> };

/**
 * product §7 POST user/mfa/setup (the upstream answers the pending secret while there is one), with the profile for
 * the account the app's entry names.
 */
async function issueSecret(c: AppContext, tokens: TokenState): Promise<IssuedSecret> {
  const [issued, account] = await Promise.all([mfaSetupTotp(c, tokens.accessToken), profile(c, tokens.accessToken)]);
  if (!issued.ok) return { ok: false, failed: issued };
  if (!account.ok) return { ok: false, failed: account };
  return { ok: true, shown: shownSecret(c, issued.data.secret_code, account.data.email) };
}

/**
 * GET /mfa/setup/TOTP. A browser that runs script gets the page at once and the secret streamed in when it arrives,
 * the spinner standing in for it (React Suspense: the late part is swapped in by a nonce'd inline script). Any other
 * browser would be left with the spinner and the secret hidden, so for it the call is awaited first and the page
 * sent complete; a failed call then answers with its modal and its own status.
 */
export const totpSetup = {
  screen: (async (c) => {
    const tokens = await signedIn(c);
    if (!tokens || "refuse" in tokens) return tokens;
    if (!runsScript(c)) {
      const issued = await issueSecret(c, tokens);
      if (!issued.ok) return { refuse: accountFailure(issued.failed) };
      return { state: tokens, page: <MfaSetupTotp secret={issued.shown} /> };
    }
    const secret = once(async (): Promise<TotpSecretResult> => {
      const issued = await issueSecret(c, tokens);
      if (issued.ok) return issued.shown;
      const { modal } = accountFailure(issued.failed);
      return { modal: typeof modal === "string" ? modal : "unexpectedError" };
    });
    return { state: tokens, page: <MfaSetupTotp secret={secret} /> };
  }) satisfies ScreenLoader<TokenState>,
};

/**
 * After `user/mfa/confirm` was refused as unknown: the setup may have been confirmed by an earlier submission of
 * the same form (a double submit without script), in which case the account now has this factor.
 */
async function confirmedBefore(
  c: AppContext,
  factor: "totp" | "sms",
  outcome: CallResult<unknown>,
  tokens: TokenState,
) {
  if (outcome.ok || outcome.problem.type !== "challenge_not_found") return false;
  const account = await profile(c, tokens.accessToken);
  return account.ok && account.data.preferred_mfa_setting === factor;
}

/** product §4: the 'two-factor set' modal on; a wrong code on the field; a dead setup starts again; else product §8. */
async function afterConfirm(
  c: AppContext,
  factor: "totp" | "sms",
  outcome: CallResult<unknown>,
  tokens: TokenState,
  show: Show,
): Promise<Response> {
  if (outcome.ok || (await confirmedBefore(c, factor, outcome, tokens))) {
    if (factor === "sms") clearSealed(c, "mfaSetup");
    return renderPage(c, <MfaSetupDone />, { modal: { key: "mfaSetupDone", href: await nextAfterSetup(c) } });
  }
  const refusal = outcome.unavailable ? undefined : outcome.problem.type;
  if (refusal === "invalid_code") {
    return show({ form: { values: {}, errors: { mfaOtpCode: "mfaCode.wrong" } }, status: 401 });
  }
  // The code ran out, or 5 wrong codes ended the setup (the upstream's cap): a new secret or SMS is needed.
  if (refusal === "expired_code") {
    return show({ modal: { key: "mfaSetupExpired", href: factor === "totp" ? "/mfa/setup/TOTP" : "/mfa/setup/SMS" } });
  }
  return show(accountFailure(outcome));
}

const hashedUser = ({ state }: { state: { hashedUserName: string } | { tokens: TokenState } }) =>
  "tokens" in state ? state.tokens.hashedUserName : state.hashedUserName;

const totpForm = z.object({
  mfaOtpCode: ruleField("code"),
  secret: totpSecretCode,
  account: z.union([z.literal(""), z.email().check(z.maxLength(254))]),
});

/**
 * POST /mfa/setup/TOTP: the authenticator's code for the secret the form names. After a wrong code the page shows
 * that secret again from the form, without asking the upstream: a new request would replace a setup that five
 * wrong codes ended, and the user would never be told to start again.
 */
export const totpConfirm = formStep({
  screen: async (c) => {
    const tokens = await signedIn(c);
    if (!tokens || "refuse" in tokens) return tokens;
    const posted = z.pick(totpForm, { secret: true, account: true }).safeParse(await c.req.parseBody());
    if (!posted.success) return undefined;
    const { secret, account } = posted.data;
    return { state: tokens, page: <MfaSetupTotp secret={shownSecret(c, secret, account || undefined)} /> };
  },
  form: () => totpForm,
  subject: hashedUser,
  submit: async (c, { state, form, show }) =>
    afterConfirm(c, "totp", await mfaConfirm(c, state.accessToken, "totp", form.mfaOtpCode), state, show),
});

interface SmsState {
  tokens: TokenState;
  step: MfaSetupState | undefined;
}

/** product §6: a brand without SMS in its allowed types offers no SMS setup (403), whatever link was followed. */
const SMS_NOT_OFFERED: Refusal = { refuse: { status: 403 } };
const offersSms = (c: AppContext) => c.get("brand").mfaTypes.includes("SMS");

const smsScreen: ScreenLoader<SmsState> = async (c) => {
  const tokens = await signedIn(c);
  if (!tokens || "refuse" in tokens) return tokens;
  if (!offersSms(c)) return SMS_NOT_OFFERED;
  const step = await readSealed(c, "mfaSetup");
  return {
    state: { tokens, step },
    page: <MfaSetupSms phoneNumber={step?.phoneNumber} sent={step?.sent ?? false} />,
  };
};

export const smsSetup = { screen: smsScreen };

const phoneForm = () => z.object({ phoneNumber: ruleField("phone") });

/** POST /mfa/setup/SMS/warning (the form's own action, without script): keep the number, show the warning page. */
export const smsWarning = formStep({
  screen: smsScreen,
  form: phoneForm,
  submit: async (c, { form }) => {
    await writeSealed(c, "mfaSetup", { phoneNumber: form.phoneNumber, sent: false });
    return c.redirect(SMS_WARNING_PATH, 303);
  },
});

/** GET /mfa/setup/SMS/warning: product §2's warning that the SMS comes from abroad, before anything is sent. */
export const smsWarningScreen = {
  screen: (async (c) => {
    const tokens = await signedIn(c);
    if (!tokens || "refuse" in tokens) return tokens;
    if (!offersSms(c)) return SMS_NOT_OFFERED;
    const step = await readSealed(c, "mfaSetup");
    if (!step) return undefined;
    return { state: tokens, page: <MfaSetupSmsWarning phoneNumber={step.phoneNumber} /> } satisfies Screen<TokenState>;
  }) satisfies ScreenLoader<TokenState>,
};

/** POST /mfa/setup/SMS/sendCode: the upstream texts a code to +81 and the number as typed (product §5). */
export const smsSend = formStep({
  screen: smsScreen,
  form: phoneForm,
  subject: hashedUser,
  submit: async (c, { state, form, show }) => {
    const outcome = await mfaSetupSms(c, state.tokens.accessToken, phoneForUpstream(form.phoneNumber));
    if (outcome.ok) {
      await writeSealed(c, "mfaSetup", { phoneNumber: form.phoneNumber, sent: true });
      return c.redirect("/mfa/setup/SMS", 303);
    }
    if (!outcome.unavailable && outcome.problem.type === "setup_pending") {
      // product §4 one setup request in flight: the first request's code is on its way, so its code step shows.
      await writeSealed(c, "mfaSetup", { phoneNumber: form.phoneNumber, sent: true });
      return renderPage(c, <MfaSetupSms phoneNumber={form.phoneNumber} sent />, { modal: "smsSetupPending" });
    }
    return show(accountFailure(outcome));
  },
});

/** POST /mfa/setup/SMS: the code the SMS brought. */
export const smsConfirm = formStep({
  screen: smsScreen,
  form: () => z.object({ mfaOtpCode: ruleField("code") }),
  subject: hashedUser,
  submit: async (c, { state, form, show }) =>
    afterConfirm(c, "sms", await mfaConfirm(c, state.tokens.accessToken, "sms", form.mfaOtpCode), state.tokens, show),
});

/**
 * product §4 skip path ('set up later', only where NONE is allowed; it needs the tokens and the app's auth request):
 * the MFA-setup view returns to the app's URL; every other view authorizes again for the app with prompt cleared,
 * so the app gets its code.
 */
export const skipMfaSetup = formStep({
  screen: async (c) => {
    const [tokens, authRequest] = await Promise.all([readSealed(c, "tokens"), readSealed(c, "authRequest")]);
    return tokens && authRequest ? { state: authRequest, page: <MfaSetup passkey={offersPasskey(c)} /> } : undefined;
  },
  form: emptyForm,
  submit: (c, { state: authRequest, show }) => {
    // The brand of the app's request decides, not whichever brand the page was last shown in.
    const brand = brandById(authRequest.serviceId) ?? c.get("brand");
    if (!brand.mfaTypes.includes("NONE")) return show({ status: 403 });
    if (authRequest.query.view === "mfaSetUp") return c.redirect(authRequest.redirectUri, 303);
    return c.redirect(appAuthorizeUrl(authRequest, undefined), 303);
  },
});
