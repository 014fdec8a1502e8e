import type { AuthorizationDetail, BankAccount } from "../../forms/authorizationDetails";
import type { SignInMethod } from "./authentication";
import type { NoticeBrand } from "./clients";
import type { Whereabouts } from "./loginContext";

/** The Japanese mails and SMS the upstream sends, keyed by meaning. */
export interface Message {
  subject: string;
  text: string;
}

/**
 * What every notice names (docs/devices.md, "Notices"): the brand the login or change came through, when (Japan
 * time), how, and from which device and place, as far as they are known.
 */
export interface NoticeFacts {
  brand: NoticeBrand;
  at: number;
  how: NoticeMethod;
  whereabouts: Whereabouts | undefined;
}

/** How a sign-in or a change was made, as a notice says it. */
export type NoticeMethod =
  | { signIn: SignInMethod; deviceConfirmed?: boolean }
  | { change: "signed_in" | "password_reset" | "forced_password" | "email_link" };

const signInMethodLabels: Record<SignInMethod, string> = {
  passkey: "パスキー",
  password_totp: "パスワードと認証アプリのコード",
  password_sms: "パスワードとSMSのコード",
  password: "パスワード",
};

const changeLabels = {
  signed_in: "ログイン中の設定変更",
  password_reset: "パスワード再設定（メールの確認コード）",
  forced_password: "ログイン時のパスワード設定",
  email_link: "メールアドレス変更の確認",
} as const;

function methodLabel(how: NoticeMethod): string {
  if ("change" in how) return changeLabels[how.change];
  const label = signInMethodLabels[how.signIn];
  return how.deviceConfirmed ? `${label}（新しい端末の確認コードで確認済み）` : label;
}

const japanOffsetMs = 9 * 60 * 60 * 1000;

/** Japan has no daylight saving time: UTC+9 all year. */
function japanTime(at: number): string {
  const local = new Date(at + japanOffsetMs);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${local.getUTCFullYear()}年${local.getUTCMonth() + 1}月${local.getUTCDate()}日 ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}（日本時間）`;
}

function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["ja"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Text a request chose (the region the edge named, a passkey's name), with anything but letters, digits, spaces,
 * hyphens and apostrophes taken out: a notice carries no text a mail reader could take for a link (`evil.example`,
 * `https://…`) nor bidi controls (U+202E) that reorder what follows, whatever a request said. Digits stay, so a phone
 * number keeps its digits and hyphens and loses only `+`, `(` and `)`: accepted, as the text stays plainly quoted.
 */
function plainText(text: string): string {
  return text
    .replace(/[^\p{L}\p{M}\p{N} '-]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function deviceLabel(whereabouts: Whereabouts | undefined): string {
  return whereabouts === undefined ? "不明な端末" : `${whereabouts.browser}（${whereabouts.os}）`;
}

function placeLabel(whereabouts: Whereabouts | undefined): string {
  const country = whereabouts?.country;
  const region = whereabouts?.region ? plainText(whereabouts.region) : "";
  if (!country) return region || "不明";
  return region ? `${countryName(country)} ${region}` : countryName(country);
}

function supportSentence(brand: NoticeBrand): string {
  const { support } = brand;
  if (support === undefined) return `${brand.name}のお問い合わせ窓口までご連絡ください`;
  if (support.advisorManaged) return "ご担当のアドバイザーまでご連絡ください";
  if (support.tel === undefined) return `${support.callCenterName}までご連絡ください`;
  return `${support.callCenterName}（電話 ${support.tel}、受付時間 ${support.businessHour}）までお電話ください`;
}

/**
 * A notice: what happened, the facts, what to do if it was not the customer (`ifNotYou`, then in words: change the
 * password, call the brand), and no link: a real notice carries none, so a mail that does is not one
 * (docs/devices.md).
 */
function notice(
  facts: NoticeFacts,
  title: string,
  happened: string,
  ifNotYou: string,
  details: string[] = [],
): Message {
  return {
    subject: `【${facts.brand.name}】${title}`,
    text: [
      happened,
      "",
      `日時: ${japanTime(facts.at)}`,
      `方法: ${methodLabel(facts.how)}`,
      `端末: ${deviceLabel(facts.whereabouts)}`,
      `場所: ${placeLabel(facts.whereabouts)}`,
      ...(details.length > 0 ? ["", ...details] : []),
      "",
      `${ifNotYou}ただちにパスワードを変更し（ログインできない場合はパスワードを再設定し）、${supportSentence(facts.brand)}。`,
      "",
      `このメールにはリンクを記載していません。${facts.brand.name}が、メールのリンクからパスワードの入力をお願いすることはありません。`,
    ].join("\n"),
  };
}

function durationLabel(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}秒間` : `${Math.round(seconds / 60)}分間`;
}

/** The notices of docs/devices.md: each names the brand, the time, the method, the device and the place. */
export const noticeCatalogue = {
  signIn: (facts: NoticeFacts): Message =>
    notice(
      facts,
      "ログインのお知らせ",
      `${facts.brand.name}のアカウントにログインがありました。`,
      "お心当たりのない場合は、第三者がお客様のアカウントにログインした可能性があります。",
    ),
  deviceCode: (facts: NoticeFacts, code: string): Message =>
    notice(
      facts,
      "新しい端末からのログイン確認コード",
      `いつもと異なる端末または場所から${facts.brand.name}のアカウントへのログインがありました。ご本人の確認のため、ログイン画面で次の確認コードを入力してください。\n\n確認コード: ${code}\n\nこのコードの有効期限は10分です。コードは誰にも伝えないでください。`,
      "お心当たりのない場合（たった今ログインしようとしていない場合）は、第三者がお客様のパスワードを知っています。このコードを入力せず、",
    ),
  accountLocked: (facts: NoticeFacts, lock: { knownDevice: boolean; durationMs: number }): Message =>
    notice(
      facts,
      "アカウントをロックしました",
      `パスワードの誤りが続いたため、${lock.knownDevice ? "この端末" : "お客様がログインしたことのない端末"}からのログインを${durationLabel(lock.durationMs)}停止しました。`,
      "お心当たりのない場合は、第三者がお客様のアカウントへのログインを試みている可能性があります。",
      [
        `ロックは${durationLabel(lock.durationMs).replace(/間$/, "")}後に自動的に解除されます。すぐにログインするには、ログイン画面からパスワードを再設定してください。再設定するとロックも解除されます。`,
      ],
    ),
  /**
   * `signedOut`: which sessions the change ended (docs/devices.md, "A changed password"): every other device's (a
   * change made signed in, or at the login's new-password step), or every one (a reset by the mailed code).
   */
  passwordChanged: (facts: NoticeFacts, signedOut: "others" | "all"): Message =>
    notice(
      facts,
      "パスワードが変更されました",
      `${facts.brand.name}のアカウントのパスワードが変更されました。${signedOut === "all" ? "すべての端末" : "お手続きをした端末以外のすべての端末"}をログアウトしました。これらの端末から次にログインするときは、メールでお送りする確認コードが必要です。パスキーはそのままご利用いただけます。`,
      "お心当たりのない場合は、第三者がお客様のパスワードを変更した可能性があります。",
    ),
  /** Logins from new devices are refused for a while (contract/limits.ts `deviceCodeWrongAccount`). */
  newDevicesSuspended: (facts: NoticeFacts, durationMs: number): Message =>
    notice(
      facts,
      "新しい端末からのログインを停止しました",
      `新しい端末からのログインで、確認コードの誤りまたは確認コードの送信が続いたため、${facts.brand.name}のアカウントへの新しい端末からのログインを一時的に停止しました。これまでにログインしたことのある端末と、パスキーでは、これまでどおりログインできます。`,
      "お心当たりのない場合は、第三者がお客様のパスワードを知っています。",
      [`停止は約${durationLabel(durationMs).replace(/間$/, "")}後に自動的に解除されます。`],
    ),
  emailChanged: (facts: NoticeFacts): Message =>
    notice(
      facts,
      "メールアドレスが変更されました",
      `${facts.brand.name}のアカウントのメールアドレス（ログインID）が変更されました。このお知らせは、変更前と変更後の両方のメールアドレスにお送りしています。`,
      "お心当たりのない場合は、第三者がお客様のメールアドレスを変更した可能性があります。",
    ),
  secondFactorChanged: (facts: NoticeFacts, type: "totp" | "sms"): Message =>
    notice(
      facts,
      "2段階認証の設定が変更されました",
      `${facts.brand.name}のアカウントの2段階認証が「${type === "totp" ? "認証アプリ" : "SMS"}」に設定されました。`,
      "お心当たりのない場合は、第三者がお客様の2段階認証の設定を変更した可能性があります。",
    ),
  deviceSignedOut: (facts: NoticeFacts, signedOut: { device: Whereabouts } | { allOthers: true }): Message =>
    notice(
      facts,
      "端末をログアウトしました",
      "allOthers" in signedOut
        ? "お手続きをした端末以外の、すべての端末をログアウトしました。これらの端末の記憶も削除したため、次にログインするときは、メールでお送りする確認コードが必要です。"
        : `${deviceLabel(signedOut.device)}をログアウトしました。この端末の記憶も削除したため、次にこの端末からログインするときは、メールでお送りする確認コードが必要です。`,
      "お心当たりのない場合は、第三者がお客様のアカウントを操作した可能性があります。",
      ["（日時・方法・端末・場所は、お手続きをした端末のものです。）"],
    ),
  /** `facts`: the bearer token's (or enrolment ticket's) brand and login device; the passkey itself is not the device. */
  passkeyAdded: (facts: NoticeFacts, name: string | null): Message =>
    notice(
      facts,
      "パスキーが登録されました",
      `${facts.brand.name}のアカウントにパスキー${passkeyLabel(name)}が登録されました。次回から、このパスキーでログインできます。`,
      "お心当たりのない場合は、第三者がお客様のアカウントにパスキーを登録した可能性があります。アカウント設定からこのパスキーを削除するとともに、",
      ["（日時・方法・端末・場所は、お手続きをした端末のものです。）"],
    ),
  passkeyRemoved: (facts: NoticeFacts, name: string | null): Message =>
    notice(
      facts,
      "パスキーが削除されました",
      `${facts.brand.name}のアカウントからパスキー${passkeyLabel(name)}が削除されました。このパスキーではログインできなくなりました。`,
      "お心当たりのない場合は、第三者がお客様のアカウントを操作した可能性があります。",
      ["（日時・方法・端末・場所は、お手続きをした端末のものです。）"],
    ),
  /**
   * An operation approved by a passkey (docs/operations.md): `facts` are the approval's (its brand, its device and
   * place, method パスキー); the details are the approved ones, in words.
   */
  operationApproved: (facts: NoticeFacts, detail: AuthorizationDetail): Message => {
    // A passkey, or the brand's temporary alternative: the password and a second factor (docs/operations.md).
    const by = "signIn" in facts.how ? signInMethodLabels[facts.how.signIn] : signInMethodLabels.passkey;
    const words = operationWords(detail, facts.brand.name, by);
    return notice(
      facts,
      words.title,
      words.happened,
      `お心当たりのない場合は、第三者がお客様の${by}でお手続きを承認した可能性があります。`,
      [...words.details, "（日時・方法・端末・場所は、お手続きを承認した端末のものです。）"],
    );
  },
  /** `facts`: the passkey sign-in attempt that gave the copy away (its login challenge's brand, its `context`). */
  passkeySuspended: (facts: NoticeFacts, name: string | null): Message =>
    notice(
      facts,
      "パスキーの利用を停止しました",
      `${facts.brand.name}のアカウントのパスキー${passkeyLabel(name)}で、複製された認証器からと疑われるログインがありました（署名カウンターが増えていません）。安全のため、このパスキーの利用を停止しました。`,
      "お心当たりのない場合は、第三者がお客様のパスキーを複製した可能性があります。",
      [
        "パスワードでログインし、アカウント設定からこのパスキーを削除して、登録し直してください。",
        "（日時・方法・端末・場所は、停止のきっかけとなったログインのものです。）",
      ],
    ),
};

/** `100,000円`: whole yen, grouped by thousands. */
function yenLabel(amount: number): string {
  return `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}円`;
}

/**
 * `みずほ銀行 渋谷支店 普通 ****1234`: the bank's and branch's names filtered as a region is (`plainText`: they are the
 * app's text, which a notice never lets pass for a link), the type and the masked number (their schema allows
 * nothing else: forms/authorizationDetails.ts).
 */
function accountLabel(account: BankAccount): string {
  const name = (text: string) => plainText(text) || "（名称を表示できません）";
  return `${name(account.bank_name)} ${name(account.branch_name)} ${account.account_type} ${account.account_number}`;
}

/**
 * An approved operation in words (docs/operations.md, "Notice and history"): its title, what happened, and its
 * details. A new e-mail address is named by its masked local part only: its domain would read as a link.
 */
/** An account in an SMS: the bank's name filtered as a region is, and the masked number. */
function smsAccount(account: BankAccount): string {
  return `${plainText(account.bank_name) || "銀行"} ${account.account_number}`;
}

/** What an approval's SMS names: the operation in a line (its account by bank and number only). */
function operationSmsWords(detail: AuthorizationDetail): string {
  switch (detail.type) {
    case "withdrawal":
      return `出金${yenLabel(detail.amount)}（${smsAccount(detail.destination)}へ）`;
    case "bank_account_change":
      return `出金先口座の変更（${smsAccount(detail.account)}へ）`;
    case "contact_change":
      return detail.channel === "email" ? "メールアドレスの変更" : `電話番号の変更（${detail.new_value}へ）`;
  }
}

function operationWords(
  detail: AuthorizationDetail,
  brand: string,
  by: string,
): { title: string; happened: string; details: string[] } {
  switch (detail.type) {
    case "withdrawal":
      return {
        title: "出金のお手続きを承認しました",
        happened: `${brand}のアカウントで、次の出金のお手続きを${by}で承認しました。`,
        details: [`出金額: ${yenLabel(detail.amount)}`, `出金先: ${accountLabel(detail.destination)}`],
      };
    case "bank_account_change":
      return {
        title: "出金先口座の変更を承認しました",
        happened: `${brand}のアカウントで、出金先口座を次の口座に変更するお手続きを${by}で承認しました。`,
        details: [`変更後の出金先口座: ${accountLabel(detail.account)}`],
      };
    case "contact_change":
      return detail.channel === "email"
        ? {
            title: "ご連絡先の変更を承認しました",
            happened: `${brand}のアカウントで、ご連絡先のメールアドレスを変更するお手続きを${by}で承認しました。`,
            details: [
              `変更後のメールアドレス: ${detail.new_value.slice(0, detail.new_value.indexOf("@") + 1)}（ドメインは記載していません）`,
            ],
          }
        : {
            title: "ご連絡先の変更を承認しました",
            happened: `${brand}のアカウントで、ご連絡先の電話番号を変更するお手続きを${by}で承認しました。`,
            details: [`変更後の電話番号: ${detail.new_value}`],
          };
  }
}

/**
 * A passkey's name as the notices quote it, filtered as a region is (`plainText`): up to 64 characters of anything
 * the customer, or whoever held the account, typed. A passkey without a name, or whose name filters away to nothing,
 * is just "the passkey".
 */
function passkeyLabel(name: string | null): string {
  const plain = name === null ? "" : plainText(name);
  return plain === "" ? "" : `「${plain}」`;
}

export const mailCatalogue = {
  signUpCode: (code: string): Message => ({
    subject: "【カザハナ証券】メールアドレス確認コードのお知らせ",
    text: `アカウント作成のお手続きありがとうございます。\n\n確認コード: ${code}\n\nこのコードの有効期限は24時間です。画面に確認コードを入力して登録を完了してください。\nお心当たりのない場合は、このメールを破棄してください。`,
  }),
  resetPassword: (link: string): Message => ({
    subject: "【カザハナ証券】パスワード再設定のご案内",
    text: `パスワード再設定のお申し込みを受け付けました。\n\n下記のリンクから60分以内に新しいパスワードを設定してください。\n${link}\n\nお心当たりのない場合は、このメールを破棄してください。`,
  }),
  initiatePassword: (link: string): Message => ({
    subject: "【カザハナ証券】パスワード設定のお願い",
    text: `サービス移行に伴い、パスワードの設定が必要です。\n\n下記のリンクから60分以内に新しいパスワードを設定してください。\n${link}\n\nお心当たりのない場合は、このメールを破棄してください。`,
  }),
  emailChangeToOld: (newEmail: string, link: string): Message => ({
    subject: "【カザハナ証券】メールアドレス変更の確認",
    text: `メールアドレスを ${newEmail} に変更するお申し込みを受け付けました。\n\nお手続きを続けるには、下記のリンクを開いてください。\n${link}\n\nお心当たりのない場合は、リンクを開かずにこのメールを破棄してください。`,
  }),
  emailChangeToNew: (link: string): Message => ({
    subject: "【カザハナ証券】新しいメールアドレスの確認",
    text: `メールアドレス変更の最後の手続きです。\n\n下記のリンクを開くと変更が完了します。\n${link}\n\nお心当たりのない場合は、このメールを破棄してください。`,
  }),
  emailRegisterCode: (code: string): Message => ({
    subject: "【カザハナ証券】メールアドレス登録の確認コード",
    text: `メールアドレス登録の確認コードをお送りします。\n\n確認コード: ${code}\n\nこのコードの有効期限は1時間です。`,
  }),
  passkeyRegistrationCode: (code: string): Message => ({
    subject: "【カザハナ証券】パスキー登録の確認コード",
    text: `パスキー登録の確認コードをお送りします。\n\n確認コード: ${code}\n\nこのコードの有効期限は10分です。\nお心当たりのない場合は、第三者がお客様のアカウントにパスキーを登録しようとしている可能性があります。コードを誰にも伝えず、パスワードを変更してください。`,
  }),
  /**
   * The code of an operation's approval by the brand's temporary alternative (docs/operations.md): PSD2's dynamic
   * linking, in the SMS itself. The customer reads what the code approves where the code arrives, so a code relayed
   * to a phishing site names the operation that site would approve.
   */
  operationSmsCode: (code: string, detail: AuthorizationDetail, brand: NoticeBrand): Message => ({
    subject: "SMS承認コード",
    text: `【${brand.name}】${operationSmsWords(detail)}の承認コード: ${code}\nこの内容にお心当たりがなければ入力しないでください。`,
  }),
  smsCode: (code: string): Message => ({
    subject: "SMS認証コード",
    text: `【カザハナ証券】認証コード: ${code}\n3分以内に入力してください。`,
  }),
};
