import { describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { SoftAuthenticator } from "../support/softAuthenticator";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN } from "./helpers";
import { askRegistrationOptions, Journey, passkeySignIn, reachLoginScreen } from "./journey";

// docs/passkeys.md "Enrolment": after a password sign-in on a brand that offers passkeys, from a browser
// that can make one, the site offers a passkey before going back to the app: a code mailed to the account, then the
// browser's ceremony (real WebAuthn responses from a software authenticator), or 'later' for 14 days.

const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;
const ENROL = "/signIn/passkey/enrol";

/** A new user signs in to the app with a password from a browser whose island said it can make a passkey. */
async function signedInWithPassword(webauthn = true) {
  const email = unique("enrol");
  await emulator.seed({ email });
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", {
    username: email,
    password: PASSWORD,
    ...(webauthn ? { webauthn: "1" } : {}),
  });
  return { email, journey, login };
}

/** Through the code step to the ceremony's options, as the page and its island do. */
async function atCeremony(journey: Journey, email: string) {
  expect((await journey.postForm(`${ENROL}/code`, {})).headers.get("location")).toBe(ENROL);
  const verified = await journey.postForm(`${ENROL}/verify`, { code: await emulator.latestCode(email) });
  expect(verified.status).toBe(303);
  const options = await askRegistrationOptions(journey);
  expect(options.status).toBe(200);
  return ((await options.json()) as { publicKey: Parameters<SoftAuthenticator["register"]>[0] }).publicKey;
}

async function appCodeAfter(journey: Journey, response: Response) {
  expect(response.status).toBe(303);
  const { foreign } = await journey.follow(response);
  expect(foreign?.origin).toBe(`https://app.${GUNGNIR.serviceId}.example`);
  return foreign?.searchParams.get("code");
}

describe("passkey enrolment after a password sign-in (docs/passkeys.md)", () => {
  it("offers a passkey, registers it with the mailed code, goes on to the app, and the passkey then signs in alone", async () => {
    const { email, journey, login } = await signedInWithPassword();
    expect(login.headers.get("location")).toBe(ENROL);
    const offer = await journey.request(ENROL);
    expect(offer.status).toBe(200);
    expect(await offer.text()).toContain("パスキーを登録する");

    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const publicKey = await atCeremony(journey, email);
    expect(publicKey).toMatchObject({ rp: { id: new URL(ORIGIN).hostname } });
    expect(publicKey).not.toHaveProperty("session");
    const credential = await authenticator.register(publicKey);
    const registered = await journey.postForm(ENROL, { credential: JSON.stringify(credential) });
    expect(await appCodeAfter(journey, registered)).toMatch(/.{16,}/);
    expect((await emulator.latest(email)).subject).toContain("パスキーが登録されました");

    // Signed out (a new browser), the passkey alone signs in.
    const { journey: next, signedIn } = await passkeySignIn(authenticator, GUNGNIR);
    expect(await appCodeAfter(next, signedIn)).toMatch(/.{16,}/);
  });

  it("goes straight to the app from a browser that cannot make a passkey (no mark from the island)", async () => {
    const { journey, login } = await signedInWithPassword(false);
    expect(await appCodeAfter(journey, login)).toMatch(/.{16,}/);
  });

  it("'later' goes on to the app and is remembered in this browser: the next sign-in is not asked again", async () => {
    const { journey, login } = await signedInWithPassword();
    expect(login.headers.get("location")).toBe(ENROL);
    const later = await journey.postForm(`${ENROL}/later`, {});
    expect(later.headers.get("set-cookie")).toMatch(/__Host-passkey-later=1;.*Max-Age=1209600/);
    expect(await appCodeAfter(journey, later)).toMatch(/.{16,}/);

    const email = unique("enrol.again");
    await emulator.seed({ email });
    const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
    await response.body?.cancel();
    const again = await journey.postForm("/signIn", { username: email, password: PASSWORD, webauthn: "1" });
    expect(await appCodeAfter(journey, again)).toMatch(/.{16,}/);
  });

  it("refuses a wrong code with the field's message, and gives the ceremony to this site's own pages only", async () => {
    const { journey } = await signedInWithPassword();
    await journey.postForm(`${ENROL}/code`, {});
    const wrong = await journey.postForm(`${ENROL}/verify`, { code: "000000" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("確認コードが正しくありません");
    expect((await askRegistrationOptions(journey)).status).toBe(404);
    expect((await askRegistrationOptions(journey, "cross-site")).status).toBe(403);
  });

  it("refuses a passkey made for another origin (a phishing page): the code step again, and no passkey added", async () => {
    const { email, journey } = await signedInWithPassword();
    const publicKey = await atCeremony(journey, email);
    const phished = await new SoftAuthenticator({ origin: "https://signin.test.evil.example" }).register(publicKey);
    const refused = await journey.postForm(ENROL, { credential: JSON.stringify(phished) });
    expect(refused.status).toBe(modals.passkeyNotRegistered.status);
    const page = await refused.text();
    expect(page).toContain(modals.passkeyNotRegistered.title);
    expect(page).toContain(`action="${ENROL}/verify"`);
    expect((await emulator.latest(email)).subject).not.toContain("パスキーが登録されました");
    // The ceremony is spent: no options until a new code opens another.
    expect((await askRegistrationOptions(journey)).status).toBe(404);
  });

  it("offers nothing where the brand's app said its webview cannot use passkeys (the bridge's cookie)", async () => {
    const email = unique("enrol.webview");
    await emulator.seed({ email });
    const journey = new Journey();
    journey.setCookie("__Host-webauthn=off; Path=/; Secure; SameSite=Strict");
    const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
    expect(await response.text()).not.toContain('action="/signIn/passkey"');
    const login = await journey.postForm("/signIn", { username: email, password: PASSWORD, webauthn: "1" });
    expect(await appCodeAfter(journey, login)).toMatch(/.{16,}/);
  });

  it("has no enrolment without a password sign-in in this browser", async () => {
    const journey = new Journey();
    expect((await journey.request(ENROL)).status).toBe(400);
    expect((await journey.postForm(`${ENROL}/code`, {})).status).toBe(400);
  });
});
