// The modal catalogue: every product §8 modal type and message, and every other modal of product §2, as one typed
// record. Pages name a record by key; the layout renders it; the worker answers with its status.

/** What a page knows when it renders a modal's text: the brand's names and the mail sender domain. */
export interface ModalTextContext {
  providerName: string;
  /** The service a transferred account comes from (product §8 system transfer), from the brand data. */
  earlierServiceName: string;
  senderDomain: string;
}

type Text = string | ((context: ModalTextContext) => string);

/**
 * What happens after the modal: `close` (a close button), `back` (history back), `serviceTop` / `app` (a link
 * out), `next` (a link to where the flow continues, given when the modal opens), `none` (nothing: it stays).
 */
export type ModalAfter = "close" | "back" | "serviceTop" | "app" | "next" | "none";

export interface ModalRecord {
  title: Text;
  body: Text;
  /** Points shown as a list under the body. */
  list?: readonly Text[];
  /** Closable modals have a close button and close with Escape; the others only offer their `after`. */
  closable: boolean;
  after: ModalAfter;
  /** The label of the `after` link, where it differs from the usual one. */
  actionLabel?: string;
  /** The HTTP status of a page that the server answers with this modal open. */
  status: 200 | 400 | 401 | 403 | 409 | 429 | 500 | 502 | 503;
  /** The Retry-After (seconds) a page with this modal open sends: the client may try again after it. */
  retryAfterSeconds?: number;
}

const tryLater = "しばらく時間をおいてお試しください";

/**
 * product §8 other tab: the session guard island shows it in the browser. A record of the catalogue like the others,
 * exported on its own so that the island's script carries this one record, not the whole catalogue.
 */
export const otherTab = {
  title: "操作が中断されました",
  body: "現在、別のタブでこのサイトを開いているため、セッションが切断されました。1つのタブでの操作をお願いします。",
  closable: false,
  after: "none",
  status: 200,
} as const satisfies ModalRecord;
/**
 * product §1/§9 native app update prompt: the bridge island shows it inside an app older than the brand's recommended
 * version, at most once in 24 hours; its action opens the store through the app. Exported on its own like otherTab.
 */
export const appUpdate = {
  title: "アプリの最新版があります",
  body: "より安全・快適にご利用いただくため、ストアから最新版にアップデートしてください。",
  closable: true,
  after: "next",
  actionLabel: "アップデートする",
  status: 200,
} as const satisfies ModalRecord;
const parameterProblem = "パラメータに不備がありました";

export const modals = {
  // product §8 modal types.
  unexpectedError: { title: "エラーが発生しました", body: tryLater, closable: true, after: "close", status: 502 },
  systemError: { title: "エラーが発生しました", body: tryLater, closable: true, after: "close", status: 502 },
  maintenance: {
    title: "システムメンテナンス中",
    body: "ただいまメンテナンス中です",
    closable: false,
    after: "none",
    status: 503,
    retryAfterSeconds: 300,
  },
  information: { title: "", body: "", closable: true, after: "close", status: 200 },
  /**
   * product §8 system transfer on the transferring service: sign-in is refused and an initiation mail is on its way,
   * whose link leads to /{serviceId}/initiatePassword. Not closable: signing in again cannot work until then.
   */
  requirePasswordInit: {
    title: "パスワードの再設定が必要です",
    body: ({ earlierServiceName }) =>
      `${earlierServiceName}からのサービス移行にともない、パスワードの再設定が必要です。ご登録のメールアドレス宛にパスワード設定用のメールを送信しました。メールに記載されたリンクからパスワードを設定してください。`,
    closable: false,
    after: "serviceTop",
    status: 403,
  },
  // product §2 entry and callback, §8 missing state.
  parameterError: {
    title: parameterProblem,
    body: "アプリに戻ってやり直しをお願いします",
    closable: false,
    after: "back",
    status: 400,
  },
  callbackParameterError: {
    title: parameterProblem,
    body: "最初からやり直してください",
    closable: false,
    after: "back",
    status: 400,
  },
  // product §4/§8 specific messages.
  retry: { title: "もう一度やり直してください", body: "", closable: true, after: "close", status: 409 },
  // docs/passkeys.md: a passkey sign-in the upstream refused (one answer whatever the reason), and a passkey whose
  // authenticator looks cloned (its signature counter went back), which the upstream has suspended.
  passkeyFailed: {
    title: "パスキーでログインできませんでした",
    body: "もう一度お試しいただくか、ログインIDとパスワードでログインしてください",
    closable: true,
    after: "close",
    status: 401,
  },
  // docs/operations.md "On the site": an operation's request that cannot be shown or approved any more (its
  // request_uri used, expired, unknown or another app's; its login gone; another operation opened in this browser
  // since), and an approval the passkey did not give. The way back is the app: a new push is a new request.
  operationUnavailable: {
    title: "お手続きを続けられません",
    body: "このお手続きは、有効期限が切れたか、すでに終了しています。アプリに戻って、もう一度お手続きください",
    closable: false,
    after: "app",
    status: 400,
  },
  /** docs/operations.md: the brand's alternative, for an account with no second factor; the passkey is left. */
  operationNeedsSecondFactor: {
    title: "パスワードでは承認できません",
    body: "2段階認証が設定されていないため、このお手続きはパスキーでのみ承認できます。アプリでパスキーを登録してから、もう一度お手続きください",
    closable: true,
    after: "close",
    status: 403,
  },
  operationNotApproved: {
    title: "承認できませんでした",
    body: "もう一度お試しください",
    closable: true,
    after: "close",
    status: 401,
  },
  passkeyRequired: {
    title: "パスキーでのログインが必要です",
    body: "このお手続きでは、ログインIDとパスワードではログインできません。パスキーでログインしてください",
    closable: true,
    after: "close",
    status: 403,
  },
  passkeySuspended: {
    title: "このパスキーは使用できません",
    body: "安全のため、このパスキーの利用を停止しました。ログインIDとパスワードでログインし、パスキーを登録し直してください",
    closable: true,
    after: "close",
    status: 403,
  },
  passkeyNotRegistered: {
    title: "パスキーを登録できませんでした",
    body: "確認コードを再送し、もう一度お試しください",
    closable: true,
    after: "close",
    status: 400,
  },
  passkeyExists: {
    title: "このパスキーは登録済みです",
    body: "この端末のパスキーは既に登録されています",
    closable: true,
    after: "close",
    status: 409,
  },
  passkeyLastOne: {
    title: "このパスキーは削除できません",
    body: "このサービスではパスキーが必須のため、最後の1つは削除できません",
    closable: true,
    after: "close",
    status: 409,
  },
  loginFailed: {
    title: "ログインIDまたはパスワードが間違っています",
    body: "確認の上、もう一度お試しください",
    closable: true,
    after: "close",
    status: 401,
  },
  alreadyRegistered: {
    title: "既にアカウントをお持ちかもしれません",
    body: "ログインに進んでください",
    closable: true,
    after: "close",
    status: 409,
  },
  tokenExpired: {
    title: "認証情報の有効期限が切れています",
    body: "アプリに戻って初めからやり直してください",
    closable: true,
    after: "close",
    status: 401,
  },
  otherTab,
  appUpdate,
  /** architecture §8: a class of attempts (sign-in, codes, mails) is over its limit for this client or subject. */
  tooManyAttempts: {
    title: "試行回数の上限に達しました",
    body: "しばらく時間をおいてから、もう一度お試しください",
    closable: true,
    after: "close",
    status: 429,
    // The rate-limit bindings' period (wrangler.toml).
    retryAfterSeconds: 60,
  },
  /**
   * docs/devices.md: the identity API refuses logins from devices the account does not know for a while (too many
   * wrong or mailed device codes for the account). Known devices and passkeys still sign in.
   */
  newDevicesSuspended: {
    title: "新しい端末からのログインを停止しています",
    body: "確認コードの誤りまたは送信が続いたため、このアカウントへの新しい端末からのログインを一時的に停止しています。これまでにログインしたことのある端末か、パスキーでログインしてください。停止は1時間以内に自動的に解除されます。",
    closable: true,
    after: "close",
    status: 429,
  },
  transferElsewhere: {
    title: "新規登録はできません",
    body: ({ providerName, earlierServiceName }) =>
      `${providerName}の別のサービス（${earlierServiceName}）でアカウントの移行手続き中のため、現在新規登録はできません。移行のご案内は${earlierServiceName}でご確認ください。`,
    closable: true,
    after: "close",
    status: 403,
  },
  // product §2 help and warning modals, opened by a control on the page.
  support: { title: "お問い合わせ先", body: "", closable: true, after: "close", status: 200 },
  whatIsId: {
    title: ({ providerName }) => `${providerName}IDとは`,
    body: ({ providerName }) =>
      `ご登録いただいたメールアドレスが${providerName}IDになります。${providerName}IDは、${providerName}が提供する各サービスで共通してご利用いただけます。`,
    closable: true,
    after: "close",
    status: 200,
  },
  smsHelp: {
    title: "SMSが届かない場合",
    body: "しばらく待ってもSMSが届かない場合は、お手数ですが最初からやり直してください。",
    closable: true,
    after: "close",
    status: 200,
  },
  mailHelp: {
    title: "メールが届かない場合",
    body: "",
    list: [
      "迷惑メールフォルダに振り分けられていないかご確認ください。",
      ({ senderDomain }) => `「${senderDomain}」からのメールを受信できるよう、受信許可の設定をお願いします。`,
      "入力したメールアドレスが間違っている、または無効なメールアドレスの可能性があります。",
    ],
    closable: true,
    after: "close",
    status: 200,
  },
  signUpBackWarning: {
    title: "入力内容が削除されます",
    body: "メールアドレスの入力画面に戻ると、入力した内容は削除されます。よろしいですか？",
    closable: false,
    after: "none",
    status: 200,
  },
  smsSendWarning: {
    title: "SMSの送信について",
    body: "認証コードのSMSは海外から送信されます。海外からのSMSを受信できない設定の場合は、設定を変更してください。",
    closable: true,
    after: "close",
    status: 200,
  },
  // product §2/§4 results of a completed action: not closable, one way on.
  // docs/devices.md "A changed password": a reset ends every session and token of the account.
  passwordReset: {
    title: "パスワードを変更しました",
    body: "ほかの端末はすべてログアウトしました。新しいパスワードでログインしてください。パスキーは変更されていません。ログイン後にパスキーの一覧でご確認ください。",
    closable: false,
    after: "app",
    status: 200,
  },
  passwordInitiated: {
    title: "パスワードを設定しました",
    body: "新しいパスワードでログインしてください。",
    closable: false,
    after: "app",
    status: 200,
  },
  // product §2 new-password pages: the mailed link's code is refused by the upstream (wrong or used; expired, or
  // dead after 5 wrong codes). The way on is a new mail from the reset screen.
  resetLinkInvalid: {
    title: "このリンクは無効です",
    body: "リンクが正しくないか、すでに使用されています。お手数ですが、もう一度メールの送信からやり直してください。",
    closable: false,
    after: "next",
    actionLabel: "メールを送信し直す",
    status: 400,
  },
  resetLinkExpired: {
    title: "リンクの有効期限が切れています",
    body: "リンクの有効期限は60分です。お手数ですが、もう一度メールの送信からやり直してください。",
    closable: false,
    after: "next",
    actionLabel: "メールを送信し直す",
    status: 400,
  },
  // docs/devices.md "A changed password": every other browser is signed out and must confirm itself again.
  passwordChanged: {
    title: "パスワードを変更しました",
    body: "ほかの端末はすべてログアウトしました。",
    closable: false,
    after: "serviceTop",
    status: 200,
  },
  /** The same, where the brand has passkeys: a passkey is not a password and stays, so the way on is their list. */
  passwordChangedCheckPasskeys: {
    title: "パスワードを変更しました",
    body: "ほかの端末はすべてログアウトしました。パスキーは変更されていません。心当たりのないパスキーがないか、一覧でご確認ください。",
    closable: false,
    after: "next",
    actionLabel: "パスキーを確認する",
    status: 200,
  },
  emailCodeConfirmed: {
    title: "確認コードを確認しました",
    body: "",
    closable: false,
    after: "next",
    actionLabel: "次へ進む",
    status: 200,
  },
  changeEmailSent: {
    title: "確認メールを送信しました",
    body: "これまでご登録のメールアドレス宛に確認メールを送信しました。メールに記載されたリンクから手続きを進めてください。",
    closable: true,
    after: "close",
    status: 200,
  },
  /** product §4 one setup request at a time: a second SMS request while the first one's code is on its way. */
  smsSetupPending: {
    title: "認証コードを送信済みです",
    body: "SMSが届くまで少しお待ちください。届かない場合は、1分ほどたってからもう一度送信してください。",
    closable: true,
    after: "close",
    status: 409,
    // The identity provider refuses a second setup SMS within a minute.
    retryAfterSeconds: 60,
  },
  /** The pending setup ended (its code ran out, or 5 wrong codes): a new secret or SMS is needed. */
  mfaSetupExpired: {
    title: "認証コードの有効期限が切れました",
    body: "お手数ですが、もう一度最初から設定してください。",
    closable: false,
    after: "next",
    actionLabel: "最初からやり直す",
    status: 409,
  },
  // docs/devices.md "On the site: /security": the results of signing devices out (POST, then the list again).
  deviceSignedOut: {
    title: "端末をログアウトしました",
    body: "",
    closable: true,
    after: "close",
    status: 200,
  },
  otherDevicesSignedOut: {
    title: "他のすべての端末をログアウトしました",
    body: "",
    closable: true,
    after: "close",
    status: 200,
  },
  /** This device forgotten: signed out here too, so there is no list to go back to. */
  deviceForgotten: {
    title: "この端末の登録を解除しました",
    body: "次のログインでは、メールの確認コードが必要です。",
    closable: false,
    after: "serviceTop",
    status: 200,
  },
  /** A device id the upstream does not know for this account (another's, or forgotten meanwhile). */
  deviceNotFound: {
    title: "端末が見つかりません",
    body: "一覧を確かめて、もう一度お試しください。",
    closable: true,
    after: "close",
    status: 200,
  },
  mfaSetupDone: {
    title: "認証が完了しました",
    body: "2段階認証を設定しました",
    closable: false,
    after: "next",
    status: 200,
  },
  // docs/passkeys.md "Passkey first": the passkey made on the second-factor step.
  passkeySetUpDone: {
    title: "パスキーを登録しました",
    body: "次回から、パスキーでログインできます",
    closable: false,
    after: "next",
    status: 200,
  },
} as const satisfies Record<string, ModalRecord>;

export type ModalKey = keyof typeof modals;

/** A modal's text with the request's names filled in. */
export function modalText(key: ModalKey, context: ModalTextContext): { title: string; body: string; list: string[] } {
  const record: ModalRecord = modals[key];
  const fill = (text: Text) => (typeof text === "function" ? text(context) : text);
  return { title: fill(record.title), body: fill(record.body), list: (record.list ?? []).map(fill) };
}
