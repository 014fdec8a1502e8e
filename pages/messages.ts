import type { FieldMessageKey, PasswordCheck } from "../forms/rules";

// The one catalogue of the site's Japanese text, keyed by meaning. Components never hold UI text.

export interface ModalText {
  title: string;
  body: string;
}

/** SPEC §8 modal types and specific messages. */
export const modalMessages = {
  unexpectedError: { title: "エラーが発生しました", body: "しばらく時間をおいてお試しください" },
  systemError: { title: "エラーが発生しました", body: "しばらく時間をおいてお試しください" },
  maintenance: { title: "システムメンテナンス中", body: "ただいまメンテナンス中です" },
  information: { title: "", body: "" },
  parameterError: { title: "パラメータに不備がありました", body: "アプリに戻ってやり直しをお願いします" },
  callbackParameterError: { title: "パラメータに不備がありました", body: "最初からやり直してください" },
  retry: { title: "もう一度やり直してください", body: "" },
  loginFailed: { title: "ログインIDまたはパスワードが間違っています", body: "確認の上、もう一度お試しください" },
  alreadyRegistered: { title: "既にアカウントをお持ちかもしれません", body: "ログインに進んでください" },
  tokenExpired: { title: "認証情報の有効期限が切れています", body: "アプリに戻って初めからやり直してください" },
  otherTab: {
    title: "操作が中断されました",
    body: "現在、別のタブでこのサイトを開いているため、セッションが切断されました。1つのタブでの操作をお願いします。",
  },
} as const satisfies Record<string, ModalText>;
export type ModalKey = keyof typeof modalMessages;

export const fieldMessages = {
  "email.invalid": "正しいメールアドレスを入力してください",
  "password.length": "パスワードは8文字以上256文字未満で入力してください",
  "password.lowercase": "英小文字を1文字以上含めてください",
  "password.uppercase": "英大文字を1文字以上含めてください",
  "password.symbol": "記号（例：@#%&?!）を1文字以上含めてください",
  "password.digit": "数字を1文字以上含めてください",
  "password.allowedCharacters": "使用できない文字が含まれています",
  "password.incorrect": "正しいパスワードを入力してください",
  "loginId.required": "ログインIDを入力してください",
  "code.invalid": "6桁の数字を入力してください",
  "phone.invalid": "正しい電話番号を入力してください",
  "field.required": "入力してください",
} as const satisfies Record<FieldMessageKey, string>;

export const passwordChecklistLabels = {
  length: "8文字以上256文字未満",
  lowercase: "英小文字を含む",
  uppercase: "英大文字を含む",
  symbol: "記号（例：@#%&?!）を含む",
  digit: "数字を含む",
  allowedCharacters: "使用できない文字を含まない",
} as const satisfies Record<PasswordCheck, string>;

export const common = {
  titlePrefix: "認証-",
  help: "お困りの方はこちら",
  backToServiceTop: "サービスのトップへ戻る",
  close: "閉じる",
  cancel: "キャンセル",
  back: "戻る",
  backToApp: "アプリに戻る",
  next: "次へ",
  loading: "読み込み中",
  showPassword: "パスワードを表示",
  hidePassword: "パスワードを隠す",
  passwordChecklistTitle: "パスワードの条件",
  checklistMet: "条件を満たしています",
  checklistUnmet: "条件を満たしていません",
  required: "必須",
  skipToContent: "本文へ移動",
  logoAlt: (displayName: string) => `${displayName}のロゴ`,
} as const;

export const supportModal = {
  title: "お問い合わせ先",
  advisorManaged: "ご担当のアドバイザーまでお問い合わせください",
  phone: (tel: string) => `電話番号：${tel}`,
  emailLabel: "メール：",
  businessHour: (hours: string) => `受付時間：${hours}`,
} as const;

export const whatIsIdModal = {
  link: (provider: string) => `${provider}IDとは`,
  title: (provider: string) => `${provider}IDとは`,
  body: (provider: string) =>
    `ご登録いただいたメールアドレスが${provider}IDになります。${provider}IDは、${provider}が提供する各サービスで共通してご利用いただけます。`,
} as const;

export const fieldLabels = {
  email: "メールアドレス",
  newEmail: "新しいメールアドレス",
  loginId: "ログインID",
  loginIdPlaceholder: "メールアドレスまたはログインID",
  password: "パスワード",
  currentPassword: "現在のパスワード",
  newPassword: "新しいパスワード",
  emailCode: "確認コード",
  mfaCode: "認証コード",
  phoneNumber: "電話番号（ハイフンなし）",
  codePlaceholder: "6桁の数字",
  phonePlaceholder: "09012345678",
  emailPlaceholder: "example@example.com",
} as const;

export const screens = {
  signUpCheckEmail: {
    title: "アカウント作成",
    lead: "ログインIDとして使用するメールアドレスを入力してください。",
    submit: "次へ",
    toSignIn: "アカウントをお持ちの方はこちら（ログイン）",
  },
  signUpInputPassword: {
    title: "パスワードの設定",
    lead: "ログインに使用するパスワードを設定してください。",
    submit: "登録する",
    backToEmail: "メールアドレスの入力に戻る",
    backWarningTitle: "入力内容が削除されます",
    backWarningBody: "メールアドレスの入力画面に戻ると、入力した内容は削除されます。よろしいですか？",
    move: "移動する",
  },
  signUpConfirmMail: {
    title: "確認コードの入力",
    lead: (email: string) =>
      `${email} 宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。`,
    leadNoEmail:
      "ご登録のメールアドレス宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。",
    validity: "確認コードの有効期限は24時間です。",
    submit: "次へ",
    resend: "確認コードを再送する",
    codeWrong: "確認コードが正しくありません",
    codeExpired: "確認コードの有効期限が切れています。確認コードを再送してください",
    fixEmail: "メールアドレスを修正する",
  },
  signIn: {
    title: "ログイン",
    submit: "ログイン",
    toSignUp: "アカウントをお持ちでない方はこちら（新規登録）",
    forgotPassword: "パスワードをお忘れの方はこちら",
    transferResetTitle: "パスワードの再設定が必要です",
    transferResetBody: (earlierService: string) =>
      `${earlierService}からのサービス移行にともない、パスワードの再設定が必要です。ご登録のメールアドレス宛にパスワード設定用のメールを送信しました。メールに記載されたリンクからパスワードを設定してください。`,
    transferElsewhereTitle: "新規登録はできません",
    transferElsewhereBody: (provider: string, earlierService: string) =>
      `${provider}の別のサービス（${earlierService}）でアカウントの移行手続き中のため、現在新規登録はできません。移行のご案内は${earlierService}でご確認ください。`,
  },
  signInMfa: {
    titleTotp: "ワンタイムパスワード認証",
    titleSms: "SMS認証",
    leadTotp: "認証アプリに表示されている6桁の認証コードを入力してください。",
    leadSms: "SMSで届いた6桁の認証コードを入力してください。",
    smsValidity: "認証コードは3分以内に入力してください。",
    submit: "ログイン",
    smsHelpLink: "SMSが届かない方はこちら",
    smsHelpTitle: "SMSが届かない場合",
    smsHelpBody: "しばらく待ってもSMSが届かない場合は、お手数ですが最初からやり直してください。",
    startOver: "最初からやり直す",
    codeWrong: "認証コードが正しくありません",
    codeExpired: "認証コードの有効期限が切れています。最初からやり直してください",
  },
  consent: {
    title: "情報提供への同意",
    lead: (partner: string, provider: string) =>
      `${partner}のサービスを利用するため、${provider}は以下の情報を${partner}に提供します。`,
    dataHeading: "提供する情報",
    dataEmail: "メールアドレス",
    dataBalance: "口座の残高情報",
    confirm: "内容をご確認の上、同意いただける場合は「同意する」を押してください。",
    agree: "同意する",
    decline: "同意しない（サービスのトップへ戻る）",
  },
  resetPassword: {
    title: "パスワードの再設定",
    lead: "ご登録のメールアドレスを入力してください。パスワード再設定用のメールをお送りします。",
    submit: "送信する",
  },
  resetPasswordSendMail: {
    title: "メールを送信しました",
    lead: "パスワード再設定用のメールを送信しました。メールに記載されたリンクから、60分以内にパスワードを再設定してください。",
    helpLink: "メールが届かない方はこちら",
    helpTitle: "メールが届かない場合",
    helpChecks: (senderDomain: string) => [
      "迷惑メールフォルダに振り分けられていないかご確認ください。",
      `「${senderDomain}」からのメールを受信できるよう、受信許可の設定をお願いします。`,
      "入力したメールアドレスが間違っている、または無効なメールアドレスの可能性があります。",
    ],
  },
  newPassword: {
    titleForgot: "パスワードの再設定",
    titleInitiate: "パスワードの設定",
    lead: "新しいパスワードを入力してください。",
    submit: "変更する",
    successTitle: "パスワードを変更しました",
    successBody: "新しいパスワードでログインしてください。",
  },
  registerEmail: {
    title: "メールアドレスの登録",
    lead: "ご利用になるメールアドレスを登録してください。",
    sendCode: "確認コードを送信",
    submit: "次へ",
    notes: [
      "現在ご登録のメールアドレスと同じアドレスも登録できます。",
      "確認コードの有効期限は1時間です。",
      "メールが届かない場合は、迷惑メールフォルダもご確認ください。",
    ],
    confirmedTitle: "確認コードを確認しました",
    confirmedBody: "",
    next: "次へ進む",
  },
  changePassword: {
    title: "パスワードの変更",
    submit: "変更する",
    successTitle: "パスワードを変更しました",
    successBody: "",
  },
  changePasswordInForceChangePassword: {
    title: "パスワードの設定",
    lead: "サービスをご利用いただくには、パスワードの設定が必要です。新しいパスワードを設定してください。",
    submit: "変更する",
  },
  changeEmail: {
    title: "メールアドレスの変更",
    lead: "新しいメールアドレスを入力してください。",
    submit: "メールを送信",
    sentTitle: "確認メールを送信しました",
    sentBody:
      "これまでご登録のメールアドレス宛に確認メールを送信しました。メールに記載されたリンクから手続きを進めてください。",
  },
  changeEmailResult: {
    title: "メールアドレスの変更",
    sentToNewEmailTitle: "メールアドレスの変更は完了していません",
    sentToNewEmailBody:
      "新しいメールアドレス宛に確認メールを送信しました。メールに記載されたリンクをクリックして、変更を完了してください。",
    completedTitle: "メールアドレスの変更が完了しました",
    completedBody: "新しいメールアドレスでログインしてください。",
    failedTitle: "エラーが発生しました",
    failedBody: "エラーが発生しました。もう一度お試しください。",
  },
  mfaSetup: {
    title: "2段階認証の設定",
    lead: "ログイン時にパスワードに加えて認証コードを入力することで、第三者による不正なログインを防ぎます。認証方法を選択してください。",
    totp: "認証アプリで設定する",
    sms: "SMSで設定する",
    later: "あとで設定する",
    successTitle: "認証が完了しました",
    successBody: "2段階認証を設定しました",
    backToChoice: "認証方法の選択に戻る",
  },
  mfaSetupTotp: {
    title: "認証アプリの設定",
    steps: [
      "認証アプリ（Google Authenticator、Microsoft Authenticator など）をスマートフォンにインストールしてください。",
      "認証アプリで下のQRコードを読み取ってください。読み取れない場合はシークレットキーを入力してください。",
      "認証アプリに表示された6桁の認証コードを入力してください。",
    ],
    qrAlt: "認証アプリ登録用のQRコード",
    secretKey: "シークレットキー",
    copy: "コピー",
    copied: "コピーしました",
    submit: "設定する",
  },
  mfaSetupSms: {
    title: "SMS認証の設定",
    lead: "SMSを受信できる携帯電話番号を入力してください。",
    sendCode: "認証コードを送信",
    codeLead: "SMSで届いた6桁の認証コードを入力してください。",
    validity: "認証コードは3分以内に入力してください。",
    submit: "設定する",
    warningTitle: "SMSの送信について",
    warningBody:
      "認証コードのSMSは海外から送信されます。海外からのSMSを受信できない設定の場合は、設定を変更してください。",
    send: "送信する",
  },
  error: {
    title: "エラーが発生しました",
    body: "リクエストが正しくありません。アプリに戻ってやり直してください。",
  },
  notFound: {
    title: "ページが見つかりません",
    body: "お探しのページは見つかりませんでした。URLをご確認ください。",
  },
} as const;
