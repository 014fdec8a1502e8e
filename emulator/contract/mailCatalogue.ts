/** The Japanese mails and SMS the upstream sends, keyed by meaning. */
export interface Message {
  subject: string;
  text: string;
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
  smsCode: (code: string): Message => ({
    subject: "SMS認証コード",
    text: `【カザハナ証券】認証コード: ${code}\n3分以内に入力してください。`,
  }),
};
