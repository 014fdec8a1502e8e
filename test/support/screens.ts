import { defaultBrand, rawBrands } from "../../themes/data/brands";
import { clients } from "../../themes/data/clients";
import type { SealedCookieName, SealedState } from "../../worker/session/cookies";
import type { Fault } from "./emulatorClient";
import { sampleWithdrawal } from "./vocabulary";

// Every product §2 screen with the query and cookie state it needs to render for real: one list for the
// browser tests (screenshots, axe, no-JS) and the benchmark.

export type ScreenState = { [N in SealedCookieName]?: SealedState<N> };

export interface ScreenCase {
  name: string;
  path: string;
  state: ScreenState;
  /** The status the screen answers with in this case. */
  status: number;
  /** Text that shows the screen rendered completely (its title or main message). */
  expectText: string;
  /**
   * How the identity API answers the calls this screen makes while it renders (emulator faults, one per call),
   * where the screen's sealed state holds no real token for it to accept.
   */
  upstream?: Fault[];
}

/** The base32 secret the TOTP setup screen shows in the screen cases (RFC 6238's test key). */
export const SCREEN_TOTP_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

export interface ScreenBrand {
  serviceId: string;
  clientId: string;
}

const tokens = (clientId: string): SealedState<"tokens"> => ({
  clientId,
  accessToken: "bench-access-token",
  expiresAt: Math.floor(Date.now() / 1000) + 3600,
  scope: "user.write",
  tokenType: "bearer",
  hashedUserName: "0".repeat(64),
});

/** product §6: the SMS setup screens exist only for a service whose brand data offers SMS. */
function offersSms(serviceId: string): boolean {
  const brand = rawBrands.find(({ id }) => id === serviceId) ?? defaultBrand;
  return brand.smsSecondFactor !== false;
}

/**
 * docs/devices.md: the history and devices the security screen case shows (GET user/signins and user/devices, one
 * fault each), read by the workerd test of the screen too: whichever test's fault a request takes, it shows this.
 */
export function securityUpstream(serviceId: string): Fault[] {
  const context = (browser: string, os: string, country: string | null, region: string | null) => ({
    browser,
    os,
    country,
    region,
  });
  const signins = [
    {
      at: "2026-11-26T08:05:00.000Z",
      method: "passkey",
      ...context("Safari", "iOS", "JP", "Tokyo"),
      service_id: serviceId,
      result: "success",
      device_id: "device-0001",
      this_device: true,
    },
    {
      at: "2026-11-25T15:40:00.000Z",
      method: "password",
      ...context("Chrome", "Windows", "VN", "Hanoi"),
      service_id: serviceId,
      result: "refused",
      device_id: null,
      this_device: false,
    },
    {
      at: "2026-11-20T01:02:03.000Z",
      method: "password_totp",
      ...context("Chrome", "Android", "JP", "Osaka"),
      service_id: "no-such-brand",
      result: "success",
      device_id: "device-0002",
      this_device: false,
    },
    {
      at: "2026-11-19T00:00:00.000Z",
      method: "password_sms",
      ...context("Firefox", "Linux", "DE", null),
      service_id: null,
      result: "success",
      device_id: "device-0003",
      this_device: false,
    },
  ];
  const device = (id: string, fields: object, lastUsed: string, signedIn: boolean, thisDevice: boolean) => ({
    id,
    ...fields,
    first_used_at: "2026-11-01T00:00:00.000Z",
    last_used_at: lastUsed,
    signed_in: signedIn,
    this_device: thisDevice,
  });
  const devices = [
    device("device-0001", context("Safari", "iOS", "JP", "Tokyo"), "2026-11-26T08:05:00.000Z", true, true),
    device("device-0002", context("Chrome", "Android", "JP", "Osaka"), "2026-11-20T01:02:03.000Z", true, false),
    device("device-0003", context("Firefox", "Linux", "DE", null), "2026-11-19T00:00:00.000Z", false, false),
  ];
  return [
    { method: "GET", pathPattern: "/auth/v1/user/signins", status: 200, body: { signins } },
    { method: "GET", pathPattern: "/auth/v1/user/devices", status: 200, body: { devices } },
  ];
}

/**
 * docs/passkeys.md "Step-up": the sign-in screen when only a passkey may sign in (the app asked for `acr_values=phr`),
 * which says why and links only support and the way back. Not in screenCases: the line-break test and the line-break
 * gallery add it, the screens' other checks have the sign-in screen.
 */
export function stepUpSignInCase({ serviceId, clientId }: ScreenBrand): ScreenCase {
  const query = {
    client_id: clientId,
    view: "signIn" as const,
    app_url: `https://app.${serviceId}.example`,
    state: "step-up",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256" as const,
    acr_values: "phr",
  };
  return {
    name: "sign-in-step-up",
    path: `/signIn?client_id=${encodeURIComponent(clientId)}`,
    state: {
      signIn: { loginChallenge: "login-challenge-0001" },
      authRequest: { query, serviceId, redirectUri: `https://app.${serviceId}.example/oauth/callback` },
    },
    status: 200,
    expectText: "このお手続きには、パスキーでのログインが必要です。",
  };
}

/**
 * docs/operations.md "On the site": the confirmation screen of a withdrawal pushed by the app, as a reload of it
 * (`GET /operation`) shows it: the operation cookie's login challenge, and the upstream's login request with the
 * details (one emulator fault, the screen's one call). In screenCases for a client of the brand data; the workerd
 * test of the screen (test/worker/operations.test.ts) reads it too.
 */
export function operationConfirmationCase({ serviceId, clientId }: ScreenBrand): ScreenCase {
  const loginRequest = {
    client_id: clientId,
    request_url: `https://signin.test/oauth2/auth?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: `https://app.${serviceId}.example/oauth/callback`,
      state: "operation-0001",
    })}`,
    authorization_details: sampleWithdrawal(),
  };
  return {
    name: "operation-confirmation",
    path: `/operation?client_id=${encodeURIComponent(clientId)}`,
    state: { operation: { loginChallenge: "login-challenge-0001", clientId } },
    status: 200,
    expectText: "出金のご確認",
    upstream: [{ method: "GET", pathPattern: "/auth/v1/login", status: 200, body: loginRequest }],
  };
}

/**
 * docs/operations.md "The temporary alternative": the same screen at its code step, the password accepted and the
 * account's authenticator app asked next (the operation cookie's step). For brands that allow the alternative.
 */
export function operationCodeStepCase(brand: ScreenBrand): ScreenCase {
  const screen = operationConfirmationCase(brand);
  const code = { username: "operation@example.com", flow: "mfa_totp", session: "login-session-0001" } as const;
  return {
    ...screen,
    name: "operation-code-step",
    state: { operation: { loginChallenge: "login-challenge-0001", clientId: brand.clientId, code } },
    expectText: "認証アプリに表示されている6桁の認証コード",
  };
}

/** Whether the brand lets its customers approve an operation with the password and a second factor. */
const approvesByCode = (serviceId: string) =>
  rawBrands.find((brand) => brand.id === serviceId)?.operationConfirmation === "passkeyOrCode";

export function screenCases({ serviceId, clientId }: ScreenBrand): ScreenCase[] {
  return allScreenCases({ serviceId, clientId }).filter(
    (screen) => offersSms(serviceId) || !screen.path.startsWith("/mfa/setup/SMS"),
  );
}

function allScreenCases({ serviceId, clientId }: ScreenBrand): ScreenCase[] {
  const q = `client_id=${encodeURIComponent(clientId)}`;
  const signIn = { loginChallenge: "login-challenge-0001" };
  return [
    { name: "entry-parameter-error", path: "/", state: {}, status: 400, expectText: "パラメータに不備がありました" },
    {
      name: "sign-up-check-email",
      path: "/signUp/checkEmail",
      state: { signUp: signIn },
      status: 200,
      expectText: "アカウント作成",
    },
    {
      name: "sign-up-input-password",
      path: "/signUp/inputPassword",
      state: { signUp: { ...signIn, email: "new.user@example.com" } },
      status: 200,
      expectText: "パスワードの設定",
    },
    {
      name: "sign-up-confirm-mail",
      path: "/signUp/confirmMail",
      state: { signUp: { ...signIn, email: "new.user@example.com", username: "u-0001" } },
      status: 200,
      expectText: "確認コードの入力",
    },
    { name: "sign-in", path: `/signIn?${q}`, state: { signIn }, status: 200, expectText: "ログイン" },
    {
      name: "sign-in-mfa-totp",
      path: "/signIn/mfa",
      state: { signIn: { ...signIn, username: "hanako@example.jp", mfa: { session: "mfa-session", type: "TOTP" } } },
      status: 200,
      expectText: "ワンタイムパスワード認証",
    },
    {
      name: "sign-in-mfa-sms",
      path: "/signIn/mfa",
      state: { signIn: { ...signIn, username: "hanako@example.jp", mfa: { session: "mfa-session", type: "SMS" } } },
      status: 200,
      expectText: "SMS認証",
    },
    {
      // docs/devices.md: a login from a new device, its code mailed to the masked address.
      name: "sign-in-device",
      path: "/signIn/device",
      state: {
        signIn: {
          ...signIn,
          username: "hanako@example.jp",
          device: { session: "device-session", destination: "h***@example.jp" },
        },
      },
      status: 200,
      expectText: "新しい端末からのログイン",
    },
    {
      name: "consent",
      path: `/${serviceId}/consent?${q}&scope=`,
      state: { consent: { consentChallenge: "consent-challenge-0001", clientId, scope: "" } },
      status: 200,
      expectText: "情報提供への同意",
    },
    // product §2: the reset pages need a client_id of the brand data; the neutral theme's unknown one gets the
    // parameter modal (the entry-parameter-error screen).
    ...(clientId in clients
      ? [
          {
            name: "reset-password",
            path: `/resetPassword?${q}`,
            state: {},
            status: 200,
            expectText: "パスワードの再設定",
          },
          {
            name: "reset-password-send-mail",
            path: `/resetPassword/sendMail?${q}`,
            state: {},
            status: 200,
            expectText: "メールを送信しました",
          },
        ]
      : []),
    // The page a mailed link redirects to: the link (code, login ID) is in its cookie, not in the address.
    {
      name: "forgot-password",
      path: `/${serviceId}/forgotPassword?${q}`,
      state: { resetLink: { page: "forgotPassword", clientId, code: "123456", username: "u-0001" } },
      status: 200,
      expectText: "パスワードの再設定",
    },
    {
      name: "initiate-password",
      path: `/${serviceId}/initiatePassword?${q}`,
      state: { resetLink: { page: "initiatePassword", clientId, code: "123456", username: "u-0001" } },
      status: 200,
      expectText: "パスワードの設定",
    },
    {
      name: "register-email",
      path: "/registerEmail",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "メールアドレスの登録",
    },
    {
      name: "register-email-code-sent",
      path: "/registerEmail",
      state: {
        tokens: tokens(clientId),
        registerEmail: { email: "new.user@example.com", hashedUserName: "0".repeat(64) },
      },
      status: 200,
      expectText: "new.user@example.com 宛に6桁の確認コードを送信しました。",
    },
    {
      name: "change-password",
      path: "/changePassword",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "パスワードの変更",
    },
    {
      name: "change-password-forced",
      path: "/changePasswordInForceChangePassword",
      state: {
        signIn: { ...signIn, username: "hanako@example.jp", forceChangePassword: { session: "force-session" } },
      },
      status: 200,
      expectText: "パスワードの設定",
    },
    {
      name: "change-email",
      path: "/changeEmail",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "メールアドレスの変更",
    },
    {
      name: "change-email-result-sent",
      path: `/${serviceId}/changeEmail?${q}&result=sent_to_new_email`,
      state: {},
      status: 200,
      expectText: "メールアドレスの変更は完了していません",
    },
    {
      name: "change-email-result-completed",
      path: `/${serviceId}/changeEmail?${q}&result=completed`,
      state: {},
      status: 200,
      expectText: "メールアドレスの変更が完了しました",
    },
    {
      name: "change-email-result-invalid",
      path: `/${serviceId}/changeEmail?${q}&result=invalid`,
      state: {},
      status: 200,
      expectText: "エラーが発生しました。もう一度お試しください。",
    },
    {
      name: "change-email-result-error",
      path: `/${serviceId}/changeEmail?${q}&result=error`,
      state: {},
      status: 200,
      expectText: "エラーが発生しました。もう一度お試しください。",
    },
    {
      name: "passkey-enrolment",
      path: "/signIn/passkey/enrol",
      state: {
        signIn: {
          ...signIn,
          username: "hanako@example.jp",
          enrolment: { ticket: "enrolment-ticket", redirectTo: "https://signin.test/oauth2/auth?v=1", codeSent: false },
        },
      },
      status: 200,
      expectText: "パスキーの登録",
    },
    {
      name: "passkeys",
      path: "/passkeys",
      state: { tokens: { ...tokens(clientId), authTime: Math.floor(Date.now() / 1000) } },
      status: 200,
      expectText: "パスキーの管理",
      upstream: [
        {
          method: "GET",
          pathPattern: "/auth/v1/passkeys",
          status: 200,
          body: {
            status: "ok",
            errorMessage: "",
            credentials: [
              {
                id: "cGFzc2tleS0wMDAx",
                name: null,
                aaguid: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd",
                created_at: "2026-11-20T01:02:03.000Z",
                last_used_at: "2026-11-24T10:00:00.000Z",
                suspended: false,
              },
            ],
          },
        },
      ],
    },
    {
      name: "security",
      path: "/security",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "ログイン履歴と端末",
      upstream: securityUpstream(serviceId),
    },
    {
      name: "mfa-setup",
      path: "/mfa/setup",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "2段階認証の設定",
    },
    {
      name: "mfa-setup-passkey-code",
      path: "/mfa/setup/passkey?step=code",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "6桁の確認コードを送信しました",
    },
    {
      name: "mfa-setup-totp",
      path: "/mfa/setup/TOTP",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "シークレットキー",
      upstream: [
        {
          method: "POST",
          pathPattern: "/auth/v1/user/mfa/setup",
          status: 201,
          body: { secret_code: SCREEN_TOTP_SECRET },
        },
        {
          method: "GET",
          pathPattern: "/auth/v1/user/profile",
          status: 200,
          body: { email: "new.user@example.com", email_verified: true, preferred_mfa_setting: "none" },
        },
      ],
    },
    {
      name: "mfa-setup-sms",
      path: "/mfa/setup/SMS",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "SMS認証の設定",
    },
    {
      name: "mfa-setup-sms-warning",
      path: "/mfa/setup/SMS/warning",
      state: { tokens: tokens(clientId), mfaSetup: { phoneNumber: "09012345678", sent: false } },
      status: 200,
      expectText: "SMSの送信について",
    },
    {
      name: "mfa-setup-sms-code",
      path: "/mfa/setup/SMS",
      state: { tokens: tokens(clientId), mfaSetup: { phoneNumber: "09012345678", sent: true } },
      status: 200,
      expectText: "09012345678 宛に認証コードを送信しました",
    },
    {
      name: "callback-parameter-error",
      path: "/callback",
      state: {},
      status: 400,
      expectText: "最初からやり直してください",
    },
    // An operation pushed by the app of a client of the brand data (the neutral theme's unknown one has none).
    ...(clientId in clients ? [operationConfirmationCase({ serviceId, clientId })] : []),
    ...(clientId in clients && approvesByCode(serviceId) ? [operationCodeStepCase({ serviceId, clientId })] : []),
    { name: "error", path: "/error", state: {}, status: 200, expectText: "エラーが発生しました" },
    { name: "not-found", path: "/no/such/page", state: {}, status: 404, expectText: "ページが見つかりません" },
  ];
}
