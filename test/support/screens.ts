import { clients } from "../../themes/data/clients";
import type { SealedCookieName, SealedState } from "../../worker/session/cookies";

// Every SPEC §2 screen with the query and cookie state it needs to render for real: one list for the
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
}

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

export function screenCases({ serviceId, clientId }: ScreenBrand): ScreenCase[] {
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
      name: "consent",
      path: `/${serviceId}/consent?${q}&scope=`,
      state: { consent: { consentChallenge: "consent-challenge-0001", clientId, scope: "" } },
      status: 200,
      expectText: "情報提供への同意",
    },
    // SPEC §2: the reset pages need a client_id of the brand data; the neutral theme's unknown one gets the
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
    {
      name: "forgot-password",
      path: `/${serviceId}/forgotPassword?${q}&code=123456&username=u-0001`,
      state: {},
      status: 200,
      expectText: "パスワードの再設定",
    },
    {
      name: "initiate-password",
      path: `/${serviceId}/initiatePassword?${q}&code=123456&username=u-0001`,
      state: {},
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
      name: "mfa-setup",
      path: "/mfa/setup",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "2段階認証の設定",
    },
    {
      name: "mfa-setup-totp",
      path: "/mfa/setup/TOTP",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "認証アプリの設定",
    },
    {
      name: "mfa-setup-sms",
      path: "/mfa/setup/SMS",
      state: { tokens: tokens(clientId) },
      status: 200,
      expectText: "SMS認証の設定",
    },
    {
      name: "callback-parameter-error",
      path: "/callback",
      state: {},
      status: 400,
      expectText: "最初からやり直してください",
    },
    { name: "error", path: "/error", state: {}, status: 200, expectText: "エラーが発生しました" },
    { name: "not-found", path: "/no/such/page", state: {}, status: 404, expectText: "ページが見つかりません" },
  ];
}
