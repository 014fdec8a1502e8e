import { afterEach, describe, expect, it } from "vitest";
import { formPost } from "../support/forms";
import { SoftAuthenticator } from "../support/softAuthenticator";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, loggedDuring, ORIGIN } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// docs/passkeys.md "Managing passkeys": /passkeys lists the signed-in user's passkeys (name, created, last
// used), adds one with a mailed code, renames and deletes them, and needs a sign-in within the last 5 minutes.

const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;

/** A user signs in from the app's `passkeys` view: the callback lands on /passkeys. */
async function atPasskeys() {
  const email = unique("manage");
  await emulator.seed({ email });
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, "passkeys");
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
  const { response: page } = await journey.follow(login);
  expect(page.status).toBe(200);
  return { email, journey, page: await page.text() };
}

/** Adds a passkey through the screen: the code, the ceremony's options, the new credential. */
async function addPasskey(journey: Journey, email: string, authenticator: SoftAuthenticator) {
  expect((await journey.postForm("/passkeys/add/code", {})).headers.get("location")).toBe("/passkeys?add=code");
  const codeStep = await journey.request("/passkeys?add=code");
  expect(await codeStep.text()).toContain('action="/passkeys/add/verify"');
  const verified = await journey.postForm("/passkeys/add/verify", { code: await emulator.latestCode(email) });
  expect(verified.headers.get("location")).toBe("/passkeys");
  const options = await journey.request("/passkey/registration/options", {
    ...formPost({}),
    headers: { "Sec-Fetch-Site": "same-origin" },
  });
  const { publicKey } = (await options.json()) as { publicKey: Parameters<SoftAuthenticator["register"]>[0] };
  const added = await journey.postForm("/passkeys/add", {
    credential: JSON.stringify(await authenticator.register(publicKey)),
  });
  expect(added.headers.get("location")).toBe("/passkeys");
}

/** The passkey rows of the page: each one's rename form holds its id. */
const rowIds = (page: string) =>
  [...page.matchAll(/action="\/passkeys\/rename"[^>]*><input type="hidden" name="id" value="([^"]+)"/g)].map(
    (match) => match[1],
  );

afterEach(() => emulator.clock(0));

describe("/passkeys (docs/passkeys.md, Managing passkeys)", () => {
  it("adds a passkey with the mailed code, lists it with its dates, renames it, and deletes it (mailing the account)", async () => {
    const { email, journey, page } = await atPasskeys();
    expect(page).toContain("パスキーは登録されていません");
    await addPasskey(journey, email, new SoftAuthenticator({ origin: ORIGIN }));
    expect((await emulator.latest(email)).subject).toContain("パスキーが登録されました");

    const listed = await (await journey.request("/passkeys")).text();
    const [id] = rowIds(listed);
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(listed).toMatch(/登録日：\d{4}年\d{1,2}月\d{1,2}日/);
    expect(listed).toContain("最終利用日：未使用");

    expect((await journey.postForm("/passkeys/rename", { id: id ?? "", name: "  仕事用のiPhone " })).status).toBe(303);
    expect(await (await journey.request("/passkeys")).text()).toContain('value="仕事用のiPhone"');

    // Logs name no credential ID (an attacker who reads logs learns no passkey): the upstream call is logged by its route.
    const logged = await loggedDuring(async () => {
      expect((await journey.postForm("/passkeys/delete", { id: id ?? "" })).headers.get("location")).toBe("/passkeys");
    });
    expect(logged).toContain("DELETE /auth/v1/passkeys/{id}");
    expect(logged).not.toContain(id);
    expect((await emulator.latest(email)).subject).toContain("削除");
    expect(rowIds(await (await journey.request("/passkeys")).text())).toEqual([]);
  });

  it("steps up when the sign-in is older than 5 minutes: a login that cannot be skipped, back to /passkeys", async () => {
    await emulator.clock(-6 * 60_000);
    const { email, journey } = await atPasskeys();
    await emulator.clock(0);
    const page = await journey.request("/passkeys");
    expect(page.status).toBe(302);
    const authorize = new URL(page.headers.get("location") ?? "", ORIGIN);
    expect(authorize.pathname).toBe("/oauth2/auth");
    expect(authorize.searchParams.get("prompt")).toBe("login");
    expect(authorize.searchParams.get("view")).toBe("passkeys");
    // A change posted with the old sign-in steps up too (its own authorization: the last one started counts), and
    // nothing is changed.
    const deleted = await journey.postForm("/passkeys/delete", { id: "AAAA" });
    expect(deleted.headers.get("location")).toMatch(/^\/oauth2\/auth\?/);
    // Signed in again, the screen shows.
    const { response } = await journey.follow(deleted);
    await response.body?.cancel();
    const again = await journey.postForm("/signIn", { username: email, password: PASSWORD });
    const { response: screen } = await journey.follow(again);
    expect(screen.status).toBe(200);
    expect(await screen.text()).toContain("パスキーの管理");
  });

  it("refuses another user's passkey, a wrong code and what is not a name, with no 500", async () => {
    const owner = await atPasskeys();
    await addPasskey(owner.journey, owner.email, new SoftAuthenticator({ origin: ORIGIN }));
    const [id] = rowIds(await (await owner.journey.request("/passkeys")).text());
    const other = await atPasskeys();
    const stolen = await other.journey.postForm("/passkeys/delete", { id: id ?? "" });
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).toContain("もう一度やり直してください");
    expect(rowIds(await (await owner.journey.request("/passkeys")).text())).toEqual([id]);

    await other.journey.postForm("/passkeys/add/code", {});
    const wrong = await other.journey.postForm("/passkeys/add/verify", { code: "000000" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("確認コードが正しくありません");
    for (const name of ["", "\u0007bell", "x".repeat(65)]) {
      expect((await owner.journey.postForm("/passkeys/rename", { id: id ?? "", name })).status).toBe(422);
    }
  });

  it("makes no passkey call while the environment's switch is off", async () => {
    const { journey } = await atPasskeys();
    const off = { env: { PASSKEYS: "off" } };
    expect((await journey.request("/passkeys", {}, off)).status).toBe(404);
    for (const path of ["/passkeys/add/code", "/passkeys/delete", "/passkeys/rename"]) {
      const refused = await journey.request(path, formPost({ id: "AAAA", name: "x" }), off);
      expect(refused.status).toBe(400);
    }
    // The request's log line lists its upstream calls: none.
    const logged = await loggedDuring(() => journey.request("/passkeys/add/code", formPost({}), off));
    expect(logged).toContain('"route":"passkeysAddCode"');
    expect(logged).not.toContain("/auth/v1/passkeys");
  });

  it("is not there without a signed-in user", async () => {
    expect((await new Journey().request("/passkeys")).status).toBe(400);
    expect((await new Journey().postForm("/passkeys/add/code", {})).status).toBe(400);
  });
});
