import { afterEach, describe, expect, it } from "vitest";
import { encodeBase64url } from "../../islands/base64url";
import { credentialDigest } from "../../worker/session/deviceCredential";
import { formPost } from "../support/forms";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { type ScreenCase, screenCases, securityUpstream } from "../support/screens";
import { DEVICE_CREDENTIAL_COOKIE, TEST_DEVICE_DIGEST } from "../support/testDevice";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, get, loggedDuring, ORIGIN, openScreen, sealedCookie } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// docs/devices.md "On the site: /security": the signed-in user's sign-ins and devices, asked of the identity API on
// every request; signing devices out or forgetting this one needs a sign-in within the last 5 minutes.

const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;
const screenCase = screenCases(GUNGNIR).find((screen) => screen.name === "security") as ScreenCase;
const FORMS = ["/security/signout", "/security/signout-others", "/security/forget"];

/** The history and devices of test/support/screens.ts, as the next two list calls' answers. */
async function listsFromFixture(): Promise<void> {
  for (const fault of securityUpstream(GUNGNIR.serviceId)) await emulator.fault(fault);
}

/** The app sends `journey` to its `security` view and the user signs in with the password; answers where it ended. */
async function signInAtSecurity(journey: Journey, email: string, password = PASSWORD): Promise<Response> {
  const { response } = await reachLoginScreen(journey, GUNGNIR, "security");
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", { username: email, password });
  return (await journey.follow(login)).response;
}

/** A new user, signed in from the test device, whose callback led to /security. */
async function signedInAtSecurity() {
  const email = unique("security");
  await emulator.seed({ email });
  const journey = new Journey();
  const page = await signInAtSecurity(journey, email);
  return { email, journey, page };
}

/** The credential of a second browser of the user, which a seeded account knows when told its digest. */
const OTHER_CREDENTIAL = {
  key: encodeBase64url(new TextEncoder().encode("other-device-credential-key-0001")),
  issuedAt: Date.now(),
};

/** A browser holding OTHER_CREDENTIAL's cookie, as the site would have set it, in Osaka. */
async function otherBrowser(): Promise<Journey> {
  const journey = new Journey({ device: "new", cf: { country: "JP", region: "Osaka" } });
  const cookie = await sealedCookie("deviceCredential", OTHER_CREDENTIAL, 400 * 24 * 60 * 60);
  journey.setCookie(`${cookie}; Path=/; Secure; HttpOnly; SameSite=Lax`);
  return journey;
}

/** A user known on two devices, signed in on both (the other first): each browser at /security. */
async function signedInTwice() {
  const email = unique("twice");
  await emulator.seed({ email, knownDevices: [TEST_DEVICE_DIGEST, await credentialDigest(OTHER_CREDENTIAL)] });
  const other = await otherBrowser();
  expect((await signInAtSecurity(other, email)).status).toBe(200);
  const here = new Journey({ cf: { country: "JP", region: "Tokyo" } });
  const page = await signInAtSecurity(here, email);
  expect(page.status).toBe(200);
  return { email, here, other, html: await page.text() };
}

/** The device ids the page's sign-out buttons name. */
const signOutIds = (html: string) =>
  [...html.matchAll(/action="\/security\/signout"[^>]*><input type="hidden" name="id" value="([^"]+)"/g)].map(
    ([, id]) => id ?? "",
  );

/** The list items of one section of the page (its heading's text to the next heading). */
function rowsUnder(marked: string, heading: string): string[] {
  // The rows' words as they read: without the phrase-boundary markers.
  const html = withoutPhraseBreaks(marked);
  const section = html.slice(html.indexOf(heading)).split('<h2 class="section-title">')[0] ?? "";
  return [...section.matchAll(/<li class="row">([\s\S]*?)<\/li>/g)].map(([, row = ""]) =>
    row.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "),
  );
}

/** A step-up: the authorization endpoint again, for this view, with a login that cannot be skipped. */
function expectStepUp(response: Response): void {
  expect(response.status).toBe(302);
  const authorize = new URL(response.headers.get("location") ?? "", ORIGIN);
  expect(authorize.pathname).toBe("/oauth2/auth");
  expect(authorize.searchParams.get("prompt")).toBe("login");
  expect(authorize.searchParams.get("view")).toBe("security");
}

afterEach(() => emulator.clock(0));

describe("/security: what it shows (docs/devices.md)", () => {
  it("lists the sign-ins newest first in Japan time, in words, and the devices with their buttons", async () => {
    const response = await openScreen(screenCase, GUNGNIR);
    expect(response.status).toBe(200);
    const html = await response.text();
    const history = rowsUnder(html, "ログイン履歴（過去90日間）");
    expect(history).toHaveLength(4);
    // 08:05 UTC is 17:05 in Tokyo; 15:40 UTC is 0:40 the next day there.
    expect(history[0]).toContain("2026年11月26日 17:05");
    expect(history[0]).toContain("方法：パスキー");
    expect(history[0]).toContain("端末：Safari・iOS");
    expect(history[0]).toContain("場所：日本（Tokyo）");
    expect(history[0]).toContain("サービス：オーロラ証券");
    expect(history[0]).toContain("この端末");
    expect(history[0]).not.toContain("失敗");
    expect(history[1]).toContain("2026年11月26日 0:40");
    expect(history[1]).toContain("失敗");
    expect(history[1]).toContain("方法：パスワード 端末：Chrome・Windows");
    expect(history[1]).toContain("場所：ベトナム（Hanoi）");
    expect(history[1]).not.toContain("この端末");
    expect(history[2]).toContain("方法：パスワード＋認証アプリ");
    // A service id the brand data does not know names no service.
    expect(history[2]).not.toContain("サービス：");
    // A country without a Japanese name here shows its code; no region, none shown.
    expect(history[3]).toContain("方法：パスワード＋SMS");
    expect(history[3]).toContain("場所：DE");

    const devices = rowsUnder(html, "ログインした端末");
    expect(devices).toHaveLength(3);
    expect(devices[0]).toContain("Safari・iOS この端末");
    expect(devices[0]).toContain("最終利用：2026年11月26日 17:05");
    expect(devices[0]).not.toContain("この端末からログアウト");
    expect(devices[1]).toContain("Chrome・Android");
    expect(devices[1]).toContain("ログイン中");
    expect(devices[1]).toContain("この端末からログアウト （Chrome・Android）");
    expect(devices[2]).toContain("ログアウト済み");
    expect(devices[2]).not.toContain("この端末からログアウト");
    // One sign-out form for the other signed-in device, naming it by the upstream's id; the others and forget.
    expect([...html.matchAll(/action="\/security\/signout"/g)]).toHaveLength(1);
    expect(html).toContain('<input type="hidden" name="id" value="device-0002"/>');
    expect(html).toContain('action="/security/signout-others"');
    expect(html).toContain('action="/security/forget"');
    // The own views that change how the user signs in; and no island, so no script at all.
    for (const href of ["/passkeys", "/changePassword", "/mfa/setup"]) expect(html).toContain(`href="${href}"`);
    expect(html).not.toContain("<script");
  });

  it("names an operation's row by what was approved, its refusal and cancel as text; refuses a row off the contract", async () => {
    const tokens = await sealedCookie("tokens", screenCase.state.tokens ?? never());
    const row = (result: string, operation: string | null) => ({
      at: "2026-11-26T08:05:00.000Z",
      method: "passkey",
      browser: "Safari",
      os: "iOS",
      country: "JP",
      region: "Tokyo",
      service_id: GUNGNIR.serviceId,
      result,
      device_id: "device-0001",
      this_device: true,
      operation,
    });
    const listed = async (signins: object[]) => {
      await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/signins", status: 200, body: { signins } });
      await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/devices", status: 200, body: { devices: [] } });
      return get("/security", [tokens]);
    };
    const response = await listed([
      row("cancelled", "contact_change"),
      row("refused", "bank_account_change"),
      row("success", "withdrawal"),
      row("success", null),
    ]);
    expect(response.status).toBe(200);
    const history = rowsUnder(await response.text(), "ログイン履歴（過去90日間）");
    expect(history).toHaveLength(4);
    expect(history[0]).toContain("キャンセル");
    expect(history[0]).toContain("方法：ご連絡先の変更の承認（パスキー）");
    expect(history[1]).toContain("失敗");
    expect(history[1]).toContain("方法：出金先口座の変更の承認（パスキー）");
    expect(history[2]).toContain("方法：出金の承認（パスキー）");
    expect(history[2]).not.toMatch(/失敗|キャンセル/);
    expect(history[3]).toContain("方法：パスキー ");

    // An operation type or a result the contract does not have, or a cancelled sign-in: a malformed answer, reported.
    for (const signins of [[row("success", "securities_transfer")], [row("pending", null)], [row("cancelled", null)]]) {
      const logged = await loggedDuring(async () => {
        const refused = await listed(signins);
        expect(refused.status, JSON.stringify(signins)).toBe(502);
        expect(await refused.text()).toContain("エラーが発生しました");
      });
      expect(logged).toContain("upstream_contract_broken");
      await emulator.clearFaults();
    }
  });

  it("says in words when there is nothing to list, and offers no button then", async () => {
    await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/signins", status: 200, body: { signins: [] } });
    await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/devices", status: 200, body: { devices: [] } });
    const response = await get("/security", [await sealedCookie("tokens", screenCase.state.tokens ?? never())]);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain("ログインした端末はありません。");
    expect(html).toContain("過去90日間のログインはありません。");
    for (const form of FORMS) expect(html).not.toContain(`action="${form}"`);
  });

  it("answers the catalogue's modal when the identity API fails, and steps up when it refuses the token", async () => {
    const tokens = await sealedCookie("tokens", screenCase.state.tokens ?? never());
    // Both lists fail: the token here is no real one, which the identity API would refuse.
    for (const list of ["signins", "devices"])
      await emulator.fault({ method: "GET", pathPattern: `/auth/v1/user/${list}`, status: 500 });
    const failed = await get("/security", [tokens]);
    expect(failed.status).toBe(502);
    expect(await failed.text()).toContain("エラーが発生しました");
    for (const list of ["signins", "devices"]) {
      const maintenance = { status: 503, body: { type: "maintenance" } };
      await emulator.fault({ method: "GET", pathPattern: `/auth/v1/user/${list}`, ...maintenance });
    }
    const maintenance = await get("/security", [tokens]);
    expect(maintenance.status).toBe(503);
    expect(await maintenance.text()).toContain("システムメンテナンス中");

    // A session revoked elsewhere: the upstream refuses the token, and the page asks for a new sign-in at once.
    const { journey } = await signedInAtSecurity();
    await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/devices", status: 401 });
    expectStepUp(await journey.request("/security"));
  });

  it("is not there while the devices switch is off, and not without a signed-in user", async () => {
    const off = { env: { DEVICE_CONFIRMATION: "off" } };
    const tokens = await sealedCookie("tokens", screenCase.state.tokens ?? never());
    const logged = await loggedDuring(async () => {
      const page = await get("/security", [tokens], {}, off);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain("ページが見つかりません");
    });
    expect(logged).not.toContain("/auth/v1/user/");
    const journey = new Journey();
    for (const path of FORMS)
      expect((await journey.request(path, formPost({ id: "device-0002" }), off)).status).toBe(400);
    expect((await get("/security")).status).toBe(400);
    for (const path of FORMS) expect((await journey.postForm(path, { id: "device-0002" })).status).toBe(400);
  });
});

describe("/security: signing devices out (docs/devices.md)", () => {
  it("refuses a device id of another shape before asking, and says so of one the upstream does not know", async () => {
    const { journey } = await signedInAtSecurity();
    for (const id of ["", "../device", "x".repeat(129), "device 0002"]) {
      const logged = await loggedDuring(async () => {
        expect((await journey.postForm("/security/signout", { id })).status).toBe(422);
      });
      expect(logged).not.toContain("/auth/v1/user/devices");
    }
    await emulator.fault({
      method: "POST",
      pathPattern: "/auth/v1/user/devices/*/signout",
      status: 404,
      body: { type: "not_found" },
    });
    const logged = await loggedDuring(async () => {
      const unknown = await journey.postForm("/security/signout", { id: "device-9999" });
      expect(unknown.headers.get("location")).toBe("/security");
    });
    // Logs name the call's route, not the device.
    expect(logged).toContain("POST /auth/v1/user/devices/{id}/signout");
    expect(logged).not.toContain("device-9999");
    await listsFromFixture();
    const page = await journey.request("/security");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("端末が見つかりません");
  });

  it("steps up before revoking when the sign-in is older than 5 minutes, or when the upstream says it is", async () => {
    await emulator.clock(-6 * 60_000);
    const { journey } = await signedInAtSecurity();
    await emulator.clock(0);
    const logged = await loggedDuring(async () => {
      for (const path of FORMS) expectStepUp(await journey.postForm(path, { id: "device-0002" }));
    });
    expect(logged).not.toContain("/auth/v1/user/devices");

    const recent = await signedInAtSecurity();
    await emulator.fault({
      method: "POST",
      pathPattern: "/auth/v1/user/devices/signout-others",
      status: 403,
      body: { type: "reauthentication_required" },
    });
    expectStepUp(await recent.journey.postForm("/security/signout-others", {}));
  });

  it("shows the catalogue's modal when a revoke fails upstream", async () => {
    const { journey } = await signedInAtSecurity();
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/devices/signout-others", status: 500 });
    const failed = await journey.postForm("/security/signout-others", {});
    expect(failed.status).toBe(502);
    expect(await failed.text()).toContain("エラーが発生しました");
  });
});

describe("/security against the identity API's own history and devices (docs/devices.md)", () => {
  it("lists a user's sign-ins and devices from two browsers, this browser's rows marked, a refused one as refused", async () => {
    const { email, here } = await signedInTwice();
    // A stranger's wrong password, from a browser the account does not know.
    const stranger = await signInAtSecurity(new Journey({ device: "new" }), email, "Wr0ng-Passw0rd!");
    expect(stranger.status).toBe(401);
    const html = await (await here.request("/security")).text();
    const history = rowsUnder(html, "ログイン履歴（過去90日間）");
    expect(history).toHaveLength(3);
    expect(history[0]).toContain("失敗");
    expect(history[0]).not.toContain("この端末");
    expect(history[1]).toContain("この端末");
    expect(history[1]).toContain("場所：日本（Tokyo）");
    expect(history[1]).toContain("サービス：オーロラ証券");
    expect(history[2]).toContain("場所：日本（Osaka）");
    expect(history[2]).not.toContain("この端末");
    for (const row of history) expect(row).toMatch(/\d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2} .*方法：パスワード/);
    const devices = rowsUnder(html, "ログインした端末");
    expect(devices).toHaveLength(2);
    expect(devices.filter((row) => row.includes("この端末 "))).toHaveLength(1);
    expect(devices.find((row) => row.includes("日本（Osaka）"))).toContain("この端末からログアウト");
    expect(signOutIds(html)).toHaveLength(1);
  });

  it("signs the other device out: its next /security asks for a sign-in, this one's stays", async () => {
    const { here, other, html } = await signedInTwice();
    const [id] = signOutIds(html);
    const posted = await here.postForm("/security/signout", { id: id ?? "" });
    expect(posted.headers.get("location")).toBe("/security");
    const result = await (await here.request("/security")).text();
    expect(result).toContain("端末をログアウトしました");
    expect(result).toContain("ログアウトした端末は登録も解除され");
    // The result is shown once: the list again without it.
    expect(await (await here.request("/security")).text()).not.toContain("端末をログアウトしました");
    expect(signOutIds(result)).toEqual([]);
    // Signed out is forgotten: the device leaves the list (its rows in the history stay).
    expect(rowsUnder(result, "ログインした端末").some((row) => row.includes("Osaka"))).toBe(false);
    expectStepUp(await other.request("/security"));
    expect((await here.request("/security")).status).toBe(200);
  });

  it("signs every other device out and keeps this one", async () => {
    const { here, other } = await signedInTwice();
    const posted = await here.postForm("/security/signout-others", {});
    expect(posted.headers.get("location")).toBe("/security");
    expect(await (await here.request("/security")).text()).toContain("他のすべての端末をログアウトしました");
    expectStepUp(await other.request("/security"));
    expect((await here.request("/security")).status).toBe(200);
  });

  it("forgets this device: signed out here, the credential cookie dropped, and its next sign-in is confirmed", async () => {
    const { email, journey } = await signedInAtSecurity();
    const posted = await journey.postForm("/security/forget", {});
    expect(posted.headers.get("location")).toBe("/security");
    expect(journey.has(DEVICE_CREDENTIAL_COOKIE)).toBe(false);
    expect(await journey.sealed("tokens")).toBeUndefined();
    const result = await journey.request("/security");
    expect(result.status).toBe(200);
    expect(await result.text()).toContain("この端末の登録を解除しました");
    // Shown once, to the browser that did it: the next GET is signed out, and no query shows it to anyone.
    expect(await (await journey.request("/security")).text()).not.toContain("この端末の登録を解除しました");
    const stranger = await new Journey().request("/security?result=forgotten");
    expect(await stranger.text()).not.toContain("この端末の登録を解除しました");
    // The test device is no longer this account's: signing in from it again asks for the mailed code.
    const again = new Journey();
    const { response } = await reachLoginScreen(again, GUNGNIR, "security");
    await response.body?.cancel();
    const login = await again.postForm("/signIn", { username: email, password: PASSWORD });
    expect(login.headers.get("location")).toBe("/signIn/device");
  });

  it("answers another account's device id with the message, and signs nothing out", async () => {
    const owner = await signedInTwice();
    const [id] = signOutIds(owner.html);
    const { journey } = await signedInAtSecurity();
    const stolen = await journey.postForm("/security/signout", { id: id ?? "" });
    expect(stolen.headers.get("location")).toBe("/security");
    const page = await journey.request("/security");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("端末が見つかりません");
    expect((await owner.other.request("/security")).status).toBe(200);
  });
});

function never(): never {
  throw new Error("the security screen case has no tokens");
}
