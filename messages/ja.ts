// All of the site's Japanese UI text, keyed by meaning (product §2, §5, §8). A leaf: it imports nothing of ours,
// so pages, islands, form rules and the worker all read the same words. Modals live in ./modals.ts.

/** product §5 field messages, by the key a form rule or an upstream refusal names. */
export const fieldMessages = {
  "email.invalid": "正しいメールアドレスを入力してください",
  "email.taken": "このメールアドレスは既に登録されています",
  "password.length": "パスワードは8文字以上256文字未満で入力してください",
  "password.lowercase": "英小文字を1文字以上含めてください",
  "password.uppercase": "英大文字を1文字以上含めてください",
  "password.symbol": "記号（例：@#%&?!）を1文字以上含めてください",
  "password.digit": "数字を1文字以上含めてください",
  "password.allowedCharacters": "使用できない文字が含まれています",
  "password.incorrect": "正しいパスワードを入力してください",
  // NIST SP 800-63B-4 §3.1.1.2: a refused password is told why, with what to do instead.
  "password.context":
    "ログインIDやメールアドレスと同じもの、サービス名を含むものはパスワードに使用できません。別のパスワードを設定してください",
  "password.leaked":
    "このパスワードは、ほかのサービスから流出したパスワードの一覧に含まれています。ほかで使っていない別のパスワードを設定してください",
  "loginId.required": "ログインIDを入力してください",
  "code.invalid": "6桁の数字を入力してください",
  "code.wrong": "確認コードが正しくありません",
  "code.expired": "確認コードの有効期限が切れています。確認コードを再送してください",
  "mfaCode.wrong": "認証コードが正しくありません",
  "mfaCode.expired": "認証コードの有効期限が切れています。最初からやり直してください",
  "phone.invalid": "正しい電話番号を入力してください",
  "field.required": "入力してください",
} as const;
export type FieldMessageKey = keyof typeof fieldMessages;

/** The rows of the live password checklist (product §5), in the order it shows them. */
export const passwordChecklistLabels = {
  length: "8文字以上256文字未満",
  lowercase: "英小文字を含む",
  uppercase: "英大文字を含む",
  symbol: "記号（例：@#%&?!）を含む",
  digit: "数字を含む",
  allowedCharacters: "使用できない文字を含まない",
} as const;
export type PasswordCheck = keyof typeof passwordChecklistLabels;

export const fieldLabels = {
  email: "メールアドレス",
  newEmail: "新しいメールアドレス",
  loginId: "メールアドレスまたはログインID",
  password: "パスワード",
  currentPassword: "現在のパスワード",
  newPassword: "新しいパスワード",
  emailCode: "確認コード",
  mfaCode: "認証コード",
  phoneNumber: "電話番号（ハイフンなし）",
  codePlaceholder: "6桁の数字",
  phonePlaceholder: "09012345678",
} as const;

/** Every submit button's label; a button island gets the key, never the sentence. */
export const buttonLabels = {
  next: "次へ",
  register: "登録する",
  logIn: "ログイン",
  passkeyLogIn: "パスキーでログイン",
  /** docs/operations.md "On the site": the confirmation screen's one way to approve. */
  approveWithPasskey: "パスキーで承認する",
  /** docs/operations.md "On the site": the brand's temporary alternative, once its code is typed. */
  approve: "承認する",
  registerPasskey: "パスキーを登録する",
  createPasskey: "パスキーを作成する",
  addPasskey: "パスキーを追加する",
  rename: "名前を変更",
  delete: "削除する",
  send: "送信する",
  change: "変更する",
  sendCode: "確認コードを送信",
  sendSmsCode: "認証コードを送信",
  set: "設定する",
  sendMail: "メールを送信",
  agree: "同意する",
  move: "移動する",
  signOutDevice: "この端末からログアウト",
  signOutOtherDevices: "他のすべての端末からログアウト",
  forgetDevice: "この端末の登録を解除",
} as const;

export const common = {
  titlePrefix: "認証-",
  /** Before the title of a page that refused a form or shows an error. */
  errorTitlePrefix: "エラー：",
  help: "お困りの方はこちら",
  backToServiceTop: "サービスのトップへ戻る",
  close: "閉じる",
  later: "あとで",
  cancel: "キャンセル",
  back: "戻る",
  backToApp: "アプリに戻る",
  next: "次へ",
  loading: "読み込み中",
  showPassword: "パスワードを表示",
  hidePassword: "パスワードを隠す",
  passwordChecklistTitle: "パスワードの条件",
  checklistMet: "（条件を満たしています）",
  checklistUnmet: "（条件を満たしていません）",
  checklistMarkMet: "✓",
  checklistMarkUnmet: "・",
  required: "必須",
  skipToContent: "本文へ移動",
  logoAlt: (displayName: string) => `${displayName}のロゴ`,
  /** The last resort when even the error page cannot render. */
  plainError: "エラーが発生しました。しばらく時間をおいてお試しください。",
} as const;

/**
 * docs/devices.md `context.browser` and `context.os`: the two family names of the contract that are words, sent to the
 * identity API as they are (its mails and the /security pages show them).
 */
export const loginContextNames = {
  /** A brand's app's webview. */
  app: "アプリ",
  other: "その他",
} as const;

export const supportContact = {
  advisorManaged: "ご担当のアドバイザーまでお問い合わせください",
  phone: (tel: string) => `電話番号：${tel}`,
  emailLabel: "メール：",
  businessHour: (hours: string) => `受付時間：${hours}`,
} as const;

/** The copy button of the TOTP secret key (product §2 MFASetupTOTP), apart: its island ships these words only. */
export const secretKeyCopy = {
  copy: "コピー",
  copied: "コピーしました",
  failed: "コピーできませんでした。キーを選択してコピーしてください",
} as const;

/**
 * docs/passkeys.md "Managing passkeys": the names of common passkey providers by their AAGUID (the community list
 * passkey-authenticator-aaguids); a passkey the user has not named is shown by its provider's name where known.
 */
export const authenticatorNames: Readonly<Record<string, string>> = {
  "fbfc3007-154e-4ecc-8c0b-6e020557d7bd": "iCloud キーチェーン",
  "dd4ec289-e01d-41c9-bb89-70fa845d4bf2": "iCloud キーチェーン",
  "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4": "Google パスワード マネージャー",
  "adce0002-35bc-c60a-648b-0b25f1f05503": "Chrome（Mac）",
  "08987058-cadc-4b81-b6e1-30de50dcbe96": "Windows Hello",
  "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": "Windows Hello",
  "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": "Windows Hello",
  "53414d53-554e-4700-0000-000000000000": "Samsung Pass",
  "bada5566-a7aa-401f-bd96-45619a55120d": "1Password",
  "d548826e-79b4-db40-a3d8-11116f7e8349": "Bitwarden",
  "531126d6-e717-415c-9320-3d9aa6981239": "Dashlane",
};

/** docs/devices.md: how a sign-in was made (`method` of GET user/signins). */
export const signInMethods = {
  passkey: "パスキー",
  password_totp: "パスワード＋認証アプリ",
  password_sms: "パスワード＋SMS",
  password: "パスワード",
} as const;

/** docs/devices.md: the countries a sign-in most often comes from (ISO 3166-1 alpha-2); any other shows its code. */
export const countryNames: Readonly<Record<string, string>> = {
  JP: "日本",
  US: "アメリカ",
  KR: "韓国",
  CN: "中国",
  TW: "台湾",
  HK: "香港",
  SG: "シンガポール",
  VN: "ベトナム",
  GB: "イギリス",
};

export const screens = {
  signUpCheckEmail: {
    title: "アカウント作成",
    lead: "ログインIDとして使用するメールアドレスを入力してください。",
    toSignIn: "アカウントをお持ちの方はこちら（ログイン）",
  },
  signUpInputPassword: {
    title: "パスワードの設定",
    lead: "ログインに使用するパスワードを設定してください。",
    backToEmail: "メールアドレスの入力に戻る",
  },
  signUpConfirmMail: {
    title: "確認コードの入力",
    lead: (email: string) =>
      `${email} 宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。`,
    leadNoEmail:
      "ご登録のメールアドレス宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。",
    validity: "確認コードの有効期限は24時間です。",
    resend: "確認コードを再送する",
    fixEmail: "メールアドレスを修正する",
  },
  signIn: {
    title: "ログイン",
    toSignUp: "アカウントをお持ちでない方はこちら（新規登録）",
    forgotPassword: "パスワードをお忘れの方はこちら",
    passkeyRequired: "このお手続きには、パスキーでのログインが必要です。",
    noPasskey:
      "パスキーをお持ちでない方は、このお手続きに進めません。アプリに戻ってログインIDとパスワードでログインし、表示される画面または「パスキーの管理」からパスキーを登録してから、もう一度お手続きください。",
  },
  /**
   * docs/operations.md "On the site": an operation pushed by the app (a withdrawal, a bank-account change, a contact
   * change), shown as pushed and approved by passkey. The passkey-only words are the step-up page's (screens.signIn).
   */
  operation: {
    titles: {
      withdrawal: "出金のご確認",
      bank_account_change: "出金先口座の変更のご確認",
      contact_change: "ご連絡先の変更のご確認",
    },
    lead: "以下の内容をご確認のうえ、パスキーで承認してください。",
    /** Where the brand allows the password and a second factor too, for now. */
    leadAlternative: "以下の内容をご確認のうえ、承認してください。",
    alternativeHeading: "パスワードと認証コードで承認する",
    alternativeLead:
      "パスキーをお持ちでない方は、当面の間、ログインIDとパスワード、2段階認証の認証コードで承認できます。パスキーを登録すると、より安全に承認できます。",
    /** The code the alternative asks for after the password, under the same details. */
    codeLeads: {
      mfa_totp: "承認するには、認証アプリに表示されている6桁の認証コードを入力してください。",
      mfa_sms:
        "承認するには、SMSで届いた6桁の承認コードを入力してください。SMSに書かれたお手続きが上の内容と同じであることをご確認ください。承認コードは3分以内に入力してください。",
      device_confirmation: (destination: string | undefined) =>
        `いつもと異なる端末または場所からのお手続きです。ご本人確認のため、${destination ?? "ご登録のメールアドレス"} 宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。`,
    },
    amount: "出金額",
    destination: "出金先",
    newAccount: "新しい出金先口座",
    contactChannel: "変更する連絡先",
    newContact: "新しい連絡先",
    channels: { email: "メールアドレス", phone: "電話番号" },
    /** Whole yen with thousands separators: 100,000円. */
    yen: (amount: number) => `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}円`,
    /** An account as pushed: みずほ銀行 渋谷支店 普通 ****1234. */
    account: (bank: string, branch: string, type: string, number: string) => `${bank} ${branch} ${type} ${number}`,
    noScript: "パスキーでの承認には、JavaScriptを有効にしたブラウザが必要です。",
  },
  /** docs/passkeys.md "Enrolment": after a password sign-in, before the browser goes back to the app. */
  passkeyEnrolment: {
    title: "パスキーの登録",
    lead: "パスキーを登録すると、次回から指紋・顔認証や画面ロックだけで、パスワードや認証コードを入力せずにログインできます。パスキーは偽サイトでは使えないため、フィッシング詐欺から口座を守ります。",
    codeLead:
      "ご登録のメールアドレス宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。",
    codeValidity: "確認コードの有効期限は10分です。",
    createLead: "「パスキーを作成する」を押し、画面の案内に従って指紋・顔認証または画面ロックの解除を行ってください。",
    resend: "確認コードを再送する",
    noScript: "パスキーの作成には、JavaScriptを有効にしたブラウザが必要です。",
  },
  /** docs/passkeys.md "Managing passkeys": the signed-in user's passkeys. */
  passkeys: {
    title: "パスキーの管理",
    lead: "ログインに使えるパスキーの一覧です。",
    none: "パスキーは登録されていません。",
    created: (date: string) => `登録日：${date}`,
    lastUsed: (date: string) => `最終利用日：${date}`,
    neverUsed: "最終利用日：未使用",
    suspended: "利用停止中",
    defaultName: "パスキー",
    nameLabel: "パスキーの名前",
    lastOneRequired: "このサービスではパスキーが必須のため、最後の1つは削除できません。",
    addHeading: "パスキーの追加",
  },
  /** docs/devices.md "On the site: /security": the account's sign-ins and devices. */
  security: {
    title: "ログイン履歴と端末",
    devicesHeading: "ログインした端末",
    devicesLead:
      "心当たりのない端末は、ログアウトしてパスワードを変更してください。ログアウトした端末は登録も解除され、次にその端末からログインするときは、メールの確認コードが必要になります。",
    noDevices: "ログインした端末はありません。",
    historyHeading: "ログイン履歴（過去90日間）",
    noHistory: "過去90日間のログインはありません。",
    historyShown: (shown: number, all: number) => `全${all}件のうち、新しい${shown}件を表示しています。`,
    thisDevice: "この端末",
    /** After a row's button, for a screen reader: which device it signs out. */
    whichDevice: (device: string) => `（${device}）`,
    refused: "失敗",
    /** docs/operations.md: an operation's login the customer cancelled. */
    cancelled: "キャンセル",
    /** An operation's row, in the method's place: what was approved, and how (「出金の承認（パスキー）」). */
    operation: (operation: string, method: string) => `${operation}の承認（${method}）`,
    /** The operations by their `authorization_details` type; never their amount or account. */
    operations: {
      withdrawal: "出金",
      bank_account_change: "出金先口座の変更",
      contact_change: "ご連絡先の変更",
    },
    signedIn: "ログイン中",
    signedOut: "ログアウト済み",
    lastUsed: (date: string) => `最終利用：${date}`,
    method: (method: string) => `方法：${method}`,
    device: (device: string) => `端末：${device}`,
    place: (place: string) => `場所：${place}`,
    brand: (name: string) => `サービス：${name}`,
    /** A browser・OS pair, a country（region）, as the rows show them. */
    joined: "・",
    region: (country: string, region: string) => `${country}（${region}）`,
    unknown: "不明",
    forgetNote: "解除すると、この端末は次のログインでメールの確認コードが必要になります。",
  },
  signInMfa: {
    titleTotp: "ワンタイムパスワード認証",
    titleSms: "SMS認証",
    leadTotp: "認証アプリに表示されている6桁の認証コードを入力してください。",
    leadSms: "SMSで届いた6桁の認証コードを入力してください。",
    smsValidity: "認証コードは3分以内に入力してください。",
    smsHelpLink: "SMSが届かない方はこちら",
    startOver: "最初からやり直す",
  },
  /** docs/devices.md: a login from a device the account has not used, confirmed by a code mailed to its address. */
  signInDevice: {
    title: "新しい端末からのログイン",
    lead: (destination: string) =>
      `いつもと異なる端末または場所からのログインです。ご本人確認のため、${destination} 宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。`,
    leadNoDestination:
      "いつもと異なる端末または場所からのログインです。ご本人確認のため、ご登録のメールアドレス宛に6桁の確認コードを送信しました。メールに記載された確認コードを入力してください。",
    validity: "確認コードの有効期限は10分です。",
    resend: "確認コードを再送する",
    startOver: "最初からやり直す",
  },
  consent: {
    title: "情報提供への同意",
    lead: (partner: string, provider: string) =>
      `${partner}のサービスを利用するため、${provider}は以下の情報を${partner}に提供します。`,
    dataHeading: "提供する情報",
    dataEmail: "メールアドレス",
    dataBalance: "口座の残高情報",
    confirm: "内容をご確認の上、同意いただける場合は「同意する」を押してください。",
    decline: "同意しない（サービスのトップへ戻る）",
  },
  resetPassword: {
    title: "パスワードの再設定",
    lead: "ご登録のメールアドレスを入力してください。パスワード再設定用のメールをお送りします。",
  },
  resetPasswordSendMail: {
    title: "メールを送信しました",
    lead: "パスワード再設定用のメールを送信しました。メールに記載されたリンクから、60分以内にパスワードを再設定してください。",
    helpLink: "メールが届かない方はこちら",
  },
  newPassword: {
    titleForgot: "パスワードの再設定",
    titleInitiate: "パスワードの設定",
    lead: "新しいパスワードを入力してください。",
  },
  registerEmail: {
    title: "メールアドレスの登録",
    lead: "ご利用になるメールアドレスを登録してください。",
    codeHeading: "確認コードの入力",
    codeLead: "メールに記載された6桁の確認コードを入力してください。",
    codeSent: (email: string) => `${email} 宛に6桁の確認コードを送信しました。`,
    notes: [
      "現在ご登録のメールアドレスと同じアドレスも登録できます。",
      "確認コードの有効期限は1時間です。",
      "メールが届かない場合は、迷惑メールフォルダもご確認ください。",
    ],
  },
  changePassword: {
    title: "パスワードの変更",
  },
  changePasswordInForceChangePassword: {
    title: "パスワードの設定",
    lead: "サービスをご利用いただくには、パスワードの設定が必要です。新しいパスワードを設定してください。",
  },
  changeEmail: {
    title: "メールアドレスの変更",
    lead: "新しいメールアドレスを入力してください。",
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
    passkey: "パスキーを作成する（おすすめ）",
    passkeyWhy: "認証コードの入力は不要で、偽サイトでは使えないためフィッシング詐欺にも強い方法です。",
    later: "あとで設定する",
    backToChoice: "認証方法の選択に戻る",
    done: "2段階認証の設定が完了しました。",
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
    codeLead: "認証アプリに表示された6桁の認証コードを入力してください。",
  },
  mfaSetupSms: {
    title: "SMS認証の設定",
    lead: "SMSを受信できる携帯電話番号を入力してください。",
    codeLead: "SMSで届いた6桁の認証コードを入力してください。",
    validity: "認証コードは3分以内に入力してください。",
    sentTo: (phoneNumber: string) => `${phoneNumber} 宛に認証コードを送信しました。`,
    /** The interstitial that shows the abroad warning before the send, without script (product §2). */
    warningNumber: "送信先の電話番号",
    changeNumber: "電話番号を修正する",
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
