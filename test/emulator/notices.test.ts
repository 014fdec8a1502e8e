import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import type { OutboxItem } from "../../emulator/state/outbox";
import { sampleClientIds } from "../../themes/data/clients";
import { TEST_DEVICE_DIGEST } from "../support/testDevice";
import { GUNGNIR } from "../support/vocabulary";
import { contextOf, digestOf, finishLogin, loginFrom, seedWithDevices, tokensFrom } from "./deviceContext";
import {
  bearer,
  call,
  follow,
  latestMail,
  login,
  outbox,
  postJson,
  register,
  resetEmulator,
  setClock,
  startLogin,
  strongPassword,
  tokensFor,
} from "./emulatorClient";
import { expectNotice } from "./noticeExpectations";

// docs/devices.md, "Notices": every notice names the brand, the time in Japan, the method, the device and the place,
// says in words what to do if it was not the customer, and carries no URL.

beforeEach(resetEmulator);

const email = "notices@example.jp";
const laptop = digestOf("laptop");
const phone = digestOf("phone");
const tablet = digestOf("tablet");

/** The mails to `address` whose subject ends with `title`, newest first. */
async function notices(address: string, title: string): Promise<OutboxItem[]> {
  return (await outbox(address)).filter((mail) => mail.subject.endsWith(title));
}

function send(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return postJson(path, body ?? {}, { method, headers: bearer(token) });
}

describe("sign-in notices", () => {
  it("tells of every sign-in with context, named by the brand it came through", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await tokensFrom(email, contextOf(laptop), { client: GUNGNIR.clientId });
    const [mail, ...more] = await notices(email, "ログインのお知らせ");
    expect(more).toEqual([]);
    expectNotice(mail, {
      title: "ログインのお知らせ",
      serviceId: GUNGNIR.serviceId,
      method: "パスワード",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
  });

  it("mails the code of a new device, then tells of the sign-in it completed", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const iphone = contextOf(phone, { browser: "Safari", os: "iOS", country: "US", region: "California" });
    const { challenge, verifier } = await startLogin();
    const asked = (await (await loginFrom(challenge, email, iphone)).json()) as {
      additional_flow: { session: string };
    };
    const codeMail = await latestMail(email);
    expectNotice(codeMail, {
      title: "新しい端末からのログイン確認コード",
      method: "パスワード",
      device: "Safari（iOS）",
      place: "アメリカ合衆国 California",
    });
    expect(codeMail.code).toMatch(/^\d{6}$/);
    expect(codeMail.text).toContain(`確認コード: ${codeMail.code}`);
    expect(codeMail.text).toContain("第三者がお客様のパスワードを知っています");
    const confirmed = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "device_confirmation",
      username: email,
      session: asked.additional_flow.session,
      code: codeMail.code,
      context: iphone,
    });
    await finishLogin(((await confirmed.json()) as { redirect_to: string }).redirect_to, verifier);
    expectNotice(await latestMail(email), {
      title: "ログインのお知らせ",
      method: "パスワード（新しい端末の確認コードで確認済み）",
      device: "Safari（iOS）",
      place: "アメリカ合衆国 California",
    });
  });

  it("tells an advisor-managed brand's customer to ask their advisor", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await tokensFrom(email, contextOf(laptop), { client: sampleClientIds.advisor });
    expectNotice(await latestMail(email), {
      title: "ログインのお知らせ",
      serviceId: "gungnir-minamo",
      method: "パスワード",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
  });

  it("never quotes a region as a reader could follow it", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await tokensFrom(email, contextOf(laptop, { region: "evil.example/login" }));
    expectNotice(await latestMail(email), {
      title: "ログインのお知らせ",
      method: "パスワード",
      device: "Chrome（Windows）",
      place: "日本 evil example login",
    });
  });

  it("sends none for a login without context to an account held to no devices contract, nor for a sign-up, which the customer has just done", async () => {
    await seedWithDevices({ email, deviceContract: false });
    const { challenge } = await startLogin();
    const accepted = await login(challenge, email, undefined, undefined, { context: undefined });
    expect(await accepted.json()).toHaveProperty("redirect_to");
    expect(await outbox(email)).toEqual([]);
    const newcomer = "newcomer@example.jp";
    const signUp = (await startLogin({ view: "signUp" })).challenge;
    const { username } = (await (await register(signUp, newcomer)).json()) as { username: string };
    const confirmed = await postJson("/auth/v1/register/confirm", {
      login_challenge: signUp,
      username,
      code: (await latestMail(newcomer)).code,
      context: contextOf(phone),
    });
    expect(confirmed.status).toBe(201);
    expect((await outbox(newcomer)).map((mail) => mail.subject)).toEqual([
      "【カザハナ証券】メールアドレス確認コードのお知らせ",
    ]);
  });
});

describe("the lock notice", () => {
  it("tells the moment unknown devices are locked out, for how long, and how it ends", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const wrong = async () => loginFrom((await startLogin()).challenge, email, contextOf(phone), "Wrong-pass1!");
    for (let count = 1; count <= 4; count += 1) await wrong();
    expect(await notices(email, "アカウントをロックしました")).toEqual([]);
    await wrong();
    await wrong();
    const [mail, ...more] = await notices(email, "アカウントをロックしました");
    expect(more).toEqual([]);
    expectNotice(mail, {
      title: "アカウントをロックしました",
      method: "パスワード",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail?.text).toContain("お客様がログインしたことのない端末からのログインを30秒間停止しました");
    expect(mail?.text).toContain("30秒後に自動的に解除されます");
    expect(mail?.text).toContain("パスワードを再設定");
  });

  it("tells when a known device is locked out for 15 minutes, and when logins that name no device lock the unknown ones", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    for (let count = 1; count <= 5; count += 1)
      await loginFrom((await startLogin()).challenge, email, contextOf(laptop), "Wrong-pass1!");
    const [mail] = await notices(email, "アカウントをロックしました");
    expect(mail?.text).toContain("この端末からのログインを15分間停止しました");
    for (let count = 1; count <= 5; count += 1)
      await login((await startLogin()).challenge, email, "Wrong-pass1!", undefined, { context: undefined });
    const locks = await notices(email, "アカウントをロックしました");
    expect(locks).toHaveLength(2);
    expect(locks[0]?.text).toContain("お客様がログインしたことのない端末からのログインを30秒間停止しました");
    expect(locks[0]?.text).toContain("端末: 不明な端末");
  });
});

describe("change notices", () => {
  it("tells of a password changed while signed in, from the device the token's login came from", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const { access_token: token } = await tokensFrom(email, contextOf(laptop, { os: "macOS" }));
    const changed = await send("PATCH", "/auth/v1/user/password", token, {
      password: strongPassword,
      new_password: "An0ther-Pass",
    });
    expect(changed.status).toBe(200);
    expectNotice(await latestMail(email), {
      title: "パスワードが変更されました",
      method: "ログイン中の設定変更",
      device: "Chrome（macOS）",
      place: "日本 Tokyo",
    });
  });

  it("tells of a password reset, from an unknown device, and keeps the reset link in its own mail", async () => {
    await seedWithDevices({ email });
    await postJson("/auth/v1/password/forgot", { client_id: GUNGNIR.clientId, username: email });
    const resetMail = await latestMail(email);
    expect(resetMail.link).toMatch(/^http:\/\/localhost:5173\//);
    const confirmed = await postJson("/auth/v1/password/confirm", {
      client_id: GUNGNIR.clientId,
      username: email,
      new_password: "An0ther-Pass",
      code: resetMail.code,
    });
    expect(confirmed.status).toBe(201);
    expectNotice(await latestMail(email), {
      title: "パスワードが変更されました",
      serviceId: GUNGNIR.serviceId,
      method: "パスワード再設定（メールの確認コード）",
      device: "不明な端末",
      place: "不明",
    });
  });

  it("tells of a password set at sign-in when it was forced", async () => {
    await seedWithDevices({ email, knownDevices: [laptop], forceChangePassword: true });
    const { challenge } = await startLogin();
    const first = await loginFrom(challenge, email, contextOf(laptop));
    const { session } = ((await first.json()) as { additional_flow: { session: string } }).additional_flow;
    const set = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "new_password",
      username: email,
      session,
      password: "An0ther-Pass",
    });
    expect(set.status).toBe(201);
    const [signIn, changed] = await outbox(email);
    expect(signIn?.subject).toContain("ログインのお知らせ");
    expectNotice(changed, {
      title: "パスワードが変更されました",
      method: "ログイン時のパスワード設定",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
  });

  it("tells the old address and the new of an address registered with a code", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const { access_token: token } = await tokensFrom(email, contextOf(laptop));
    const moved = "moved@example.jp";
    await send("POST", "/auth/v1/user/email", token, { email: moved });
    const confirmed = await send("POST", "/auth/v1/user/email/confirm", token, {
      code: (await latestMail(moved)).code,
    });
    expect(confirmed.status).toBe(201);
    for (const address of [email, moved]) {
      expectNotice(await latestMail(address), {
        title: "メールアドレスが変更されました",
        method: "ログイン中の設定変更",
        device: "Chrome（Windows）",
        place: "日本 Tokyo",
      });
    }
    // The same address again is no change.
    await send("POST", "/auth/v1/user/email", token, { email: moved });
    await send("POST", "/auth/v1/user/email/confirm", token, { code: (await latestMail(moved)).code });
    expect(await notices(moved, "メールアドレスが変更されました")).toHaveLength(1);
  });

  it("tells the old address and the new of an address changed by the mailed links", async () => {
    await seedWithDevices({ email, knownDevices: [TEST_DEVICE_DIGEST] });
    const { access_token: token } = await tokensFor(email, { client: GUNGNIR.clientId });
    const moved = "linked@example.jp";
    await send("PATCH", "/auth/v1/user/email", token, { new_email: moved });
    await follow((await latestMail(email)).link ?? "");
    await follow((await latestMail(moved)).link ?? "");
    for (const address of [email, moved]) {
      expectNotice(await latestMail(address), {
        title: "メールアドレスが変更されました",
        serviceId: GUNGNIR.serviceId,
        method: "メールアドレス変更の確認",
        device: "不明な端末",
        place: "不明",
      });
    }
  });

  it("tells of a second factor set up", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const { access_token: token } = await tokensFrom(email, contextOf(laptop));
    const setup = (await (await send("POST", "/auth/v1/user/mfa/setup", token, { type: "totp" })).json()) as {
      secret_code: string;
    };
    const code = new TOTP({ secret: setup.secret_code }).generate();
    expect((await send("POST", "/auth/v1/user/mfa/confirm", token, { type: "totp", code })).status).toBe(201);
    const mail = await latestMail(email);
    expectNotice(mail, {
      title: "2段階認証の設定が変更されました",
      method: "ログイン中の設定変更",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail.text).toContain("「認証アプリ」");
  });

  it("tells of a device forgotten, a device signed out and the others signed out, each forgotten", async () => {
    await seedWithDevices({ email, knownDevices: [laptop, phone, tablet] });
    await tokensFrom(email, contextOf(phone, { browser: "Samsung Internet", os: "Android" }));
    await tokensFrom(email, contextOf(tablet, { browser: "Safari", os: "iOS" }));
    const { access_token: token } = await tokensFrom(email, contextOf(laptop));
    const list = await call("/auth/v1/user/devices", { headers: { ...bearer(token), "device-digest": laptop } });
    const { devices } = (await list.json()) as { devices: { id: string; browser: string }[] };
    const idOf = (browser: string) => devices.find((device) => device.browser === browser)?.id;
    const expected = {
      title: "端末をログアウトしました",
      method: "ログイン中の設定変更",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    };
    const revoke = async (method: string, path: string, headers: Record<string, string> = {}) => {
      const response = await call(path, { method, headers: { ...bearer(token), ...headers } });
      expect(response.status).toBe(204);
      const mail = await latestMail(email);
      expectNotice(mail, expected);
      return mail.text;
    };
    const forgotten =
      "この端末の記憶も削除したため、次にこの端末からログインするときは、メールでお送りする確認コードが必要です。";
    expect(await revoke("DELETE", `/auth/v1/user/devices/${idOf("Safari")}`)).toContain(
      `Safari（iOS）をログアウトしました。${forgotten}`,
    );
    expect(await revoke("POST", `/auth/v1/user/devices/${idOf("Samsung Internet")}/signout`)).toContain(
      `Samsung Internet（Android）をログアウトしました。${forgotten}`,
    );
    expect(await revoke("POST", "/auth/v1/user/devices/signout-others", { "device-digest": laptop })).toContain(
      "すべての端末をログアウトしました。これらの端末の記憶も削除したため",
    );
  });
});

describe("the developer outbox", () => {
  it("shows the notices, escaped, beside the other mails", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await setClock(0);
    await tokensFrom(email, contextOf(laptop));
    const page = await call(`/__emulator/outbox.html?to=${encodeURIComponent(email)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("【カザハナ証券】ログインのお知らせ");
    expect(html).toContain("端末: Chrome（Windows）");
  });
});
