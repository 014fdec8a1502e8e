/** The Japanese mails and SMS the upstream sends, keyed by meaning. */
export interface Message {
  subject: string;
  text: string;
}

/** A passkey's name as the mails quote it; a passkey without one is just "the passkey". */
function passkeyLabel(name: string | null): string {
  return name === null ? "" : `「${name}」`;
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
  passkeyAdded: (name: string | null): Message => ({
    subject: "【カザハナ証券】パスキーが登録されました",
    text: `お客様のアカウントにパスキー${passkeyLabel(name)}が登録されました。次回から、このパスキーでログインできます。\n\nお心当たりのない場合は、ただちにパスワードを変更し、アカウント設定からこのパスキーを削除してください。`,
  }),
  passkeyRemoved: (name: string | null): Message => ({
    subject: "【カザハナ証券】パスキーが削除されました",
    text: `お客様のアカウントからパスキー${passkeyLabel(name)}が削除されました。このパスキーではログインできなくなりました。\n\nお心当たりのない場合は、ただちにパスワードを変更してください。`,
  }),
  passkeySuspended: (name: string | null): Message => ({
    subject: "【カザハナ証券】パスキーの利用を停止しました",
    text: `お客様のパスキー${passkeyLabel(name)}で、複製された認証器からと疑われるログインがありました（署名カウンターが増えていません）。安全のため、このパスキーの利用を停止しました。\n\nパスワードでログインし、アカウント設定からこのパスキーを削除して、登録し直してください。お心当たりのない場合は、パスワードも変更してください。`,
  }),
  smsCode: (code: string): Message => ({
    subject: "SMS認証コード",
    text: `【カザハナ証券】認証コード: ${code}\n3分以内に入力してください。`,
  }),
};
