import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { brandById } from "../../themes/brands";
import type { MfaType } from "../../themes/schema";
import type { View } from "../../worker/session/authRequest";
import type { AppBrand } from "../support/appStart";
import { escapeHtml, expectModalIn } from "../support/expectations";
import { SoftAuthenticator } from "../support/softAuthenticator";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN, optionsForFault, PAST_SHORT_TIMEOUT_MS, sealedCookie } from "./helpers";
import { askRegistrationOptions, Journey, passkeySignIn, reachLoginScreen } from "./journey";

// docs/passkeys.md "Passkey first": the second-factor step offers a passkey before the authenticator app and SMS.
// Right after a sign-up the sign-up's ticket registers it with no further mailed code; in the own view `mfaSetUp`
// after a password sign-in the code is mailed first. Real WebAuthn responses from a software authenticator.

const SETUP = "/mfa/setup/passkey";
const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;

let info: MockInstance;
beforeEach(() => {
  info = vi.spyOn(console, "info");
});
afterEach(() => info.mockRestore());

/** The JSON event lines logged as `event` since the test began. */
const events = (event: string) =>
  info.mock.calls
    .map(([line]) => (typeof line === "string" && line.startsWith("{") ? JSON.parse(line) : undefined))
    .filter((line) => line?.event === event);

/** A new customer signs up through the site (e-mail, password, mailed code) and lands on the second-factor step. */
async function signedUp(brand: AppBrand = GUNGNIR) {
  const email = unique("first");
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, brand, "signUp");
  await response.body?.cancel();
  await journey.postForm("/signUp/checkEmail", { email });
  await journey.postForm("/signUp/inputPassword", { password: PASSWORD });
  const confirmed = await journey.postForm("/signUp/confirmMail", { code: await emulator.latestCode(email) });
  const { response: step } = await journey.follow(confirmed);
  expect(new URL(step.url).pathname).toBe("/mfa/setup");
  return { email, journey, step: await step.text() };
}

/**
 * A seeded customer signs in with a password for `view` from a browser that can make a passkey (the island's mark):
 * no enrolment offer, since the second-factor step the callback lands on offers the passkey itself.
 */
async function signedInFor(view: View) {
  const email = unique("setup");
  await emulator.seed({ email });
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, view);
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", { username: email, password: PASSWORD, webauthn: "1" });
  const { response: step } = await journey.follow(login);
  expect(new URL(step.url).pathname).toBe("/mfa/setup");
  await step.body?.cancel();
  return { email, journey };
}

/** The browser's ceremony with the options of this browser's registration; answers the form's POST. */
async function makePasskey(journey: Journey, authenticator: SoftAuthenticator) {
  const options = await askRegistrationOptions(journey);
  expect(options.status).toBe(200);
  const { publicKey } = (await options.json()) as { publicKey: Parameters<SoftAuthenticator["register"]>[0] };
  return journey.postForm(SETUP, { credential: JSON.stringify(await authenticator.register(publicKey)) });
}

/** The 'passkey registered' modal; its link goes on to the app's authorization, which gives the app its code. */
async function onToApp(journey: Journey, done: Response) {
  expect(done.status).toBe(200);
  const html = await done.text();
  expectModalIn(html, "passkeySetUpDone");
  const href = /<dialog open=""[\s\S]*?<a class="button" href="([^"]+)"/.exec(html)?.[1] ?? "";
  const next = new URL(href.replaceAll("&amp;", "&"), ORIGIN);
  expect(`${next.origin}${next.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
  const { foreign } = await journey.follow(await journey.request(next.toString()));
  expect(foreign?.origin).toBe(`https://app.${GUNGNIR.serviceId}.example`);
  expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);
}

/** A new browser signs in to the app with the passkey alone; answers where the site's redirects ended. */
async function signedInByPasskey(authenticator: SoftAuthenticator) {
  const { journey, signedIn } = await passkeySignIn(authenticator, GUNGNIR);
  expect(signedIn.status).toBe(303);
  return journey.follow(signedIn);
}

describe("the second-factor step offers a passkey first (docs/passkeys.md, 'Passkey first')", () => {
  it("offers it before the app and SMS after sign-up; the sign-up's ticket registers it with no mailed code", async () => {
    const { email, journey, step } = await signedUp();
    // The offer is the island's (shown where WebAuthn works), ahead of the app and SMS links, which stay.
    const offer = step.indexOf('data-island="PasskeyOffer"');
    expect(offer).toBeGreaterThan(-1);
    expect(step).toContain(escapeHtml(JSON.stringify(`${SETUP}/start`)));
    expect(offer).toBeLessThan(step.indexOf('href="/mfa/setup/TOTP"'));
    expect(offer).toBeLessThan(step.indexOf('href="/mfa/setup/SMS"'));
    expect(await journey.sealedKept("signUpPasskey")).toMatchObject({ ticket: expect.stringMatching(/.{16,}/) });

    const codeMail = await emulator.latest(email);
    const started = await journey.postForm(`${SETUP}/start`, {});
    expect(started.status).toBe(303);
    expect(started.headers.get("Location")).toBe(SETUP);
    // No second code: the last mail is still the sign-up's.
    expect(await emulator.latest(email)).toEqual(codeMail);
    const ceremony = await journey.request(SETUP);
    expect(await ceremony.text()).toContain('data-island="PasskeyCreate"');

    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    await onToApp(journey, await makePasskey(journey, authenticator));
    expect((await emulator.latest(email)).subject).toContain("パスキーが登録されました");
    expect(journey.has("__Host-sign-up-passkey")).toBe(false);
    expect(events("passkey_registered")).toEqual([
      expect.objectContaining({ brand: GUNGNIR.serviceId, place: "signUp" }),
    ]);

    // The next sign-in is the passkey alone, and it is logged for the adoption counts.
    const { foreign } = await signedInByPasskey(authenticator);
    expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);
    expect(events("passkey_signed_in")).toEqual([
      expect.objectContaining({ brand: GUNGNIR.serviceId, view: "signIn", passkeyOnly: false }),
    ]);
  });

  it("in the own view mfaSetUp after a password sign-in, mails a code first, then registers the passkey", async () => {
    const { email, journey } = await signedInFor("mfaSetUp");
    expect(journey.has("__Host-sign-up-passkey")).toBe(false);
    const started = await journey.postForm(`${SETUP}/start`, {});
    expect(started.headers.get("Location")).toBe(`${SETUP}?step=code`);
    expect((await emulator.latest(email)).subject).toContain("パスキー登録の確認コード");
    expect((await askRegistrationOptions(journey)).status).toBe(404);
    const wrong = await journey.postForm(`${SETUP}/verify`, { code: "000000" });
    expect(wrong.status).toBe(401);
    const verified = await journey.postForm(`${SETUP}/verify`, { code: await emulator.latestCode(email) });
    expect(verified.headers.get("Location")).toBe(SETUP);
    await onToApp(journey, await makePasskey(journey, new SoftAuthenticator({ origin: ORIGIN })));
    expect(events("passkey_registered")).toEqual([expect.objectContaining({ place: "mfaSetUp" })]);
  });

  it("takes another user's sign-up ticket in this browser for no one's: the code is mailed", async () => {
    const { email, journey } = await signedInFor("mfaSetUp");
    const { journey: other } = await signedUp();
    const foreign = await other.sealedKept("signUpPasskey");
    journey.setCookie(`${await sealedCookie("signUpPasskey", foreign)}; Path=/; Secure`);
    expect(await journey.sealed("signUpPasskey")).toEqual(foreign);
    const started = await journey.postForm(`${SETUP}/start`, {});
    expect(started.headers.get("Location")).toBe(`${SETUP}?step=code`);
    expect((await emulator.latest(email)).subject).toContain("パスキー登録の確認コード");
  });

  it("refuses a passkey made on another origin: the start again, the ticket kept, nothing registered", async () => {
    const { email, journey } = await signedUp();
    await journey.postForm(`${SETUP}/start`, {});
    const options = (await (await askRegistrationOptions(journey)).json()) as {
      publicKey: Parameters<SoftAuthenticator["register"]>[0];
    };
    const phished = await new SoftAuthenticator({ origin: "https://signin.test.evil.example" }).register(
      options.publicKey,
    );
    const refused = await journey.postForm(SETUP, { credential: JSON.stringify(phished) });
    expect(refused.status).toBe(modals.passkeyNotRegistered.status);
    const page = await refused.text();
    expectModalIn(page, "passkeyNotRegistered");
    expect(page).toContain(`action="${SETUP}/start"`);
    expect((await emulator.latest(email)).subject).not.toContain("パスキーが登録されました");
    // The ticket was not spent by the refusal: a new ceremony without a code.
    expect((await journey.postForm(`${SETUP}/start`, {})).headers.get("Location")).toBe(SETUP);
  });

  it.each([
    ["is in maintenance", { status: 503 }, 503, "maintenance"],
    ["fails", { status: 500 }, 502, "unexpectedError"],
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS, status: 200 }, 504, "unexpectedError"],
  ] as const)(
    "shows the product §8 modal when the ceremony's upstream %s, and the next start works",
    async (_, fault, status, modal) => {
      const { journey } = await signedUp();
      await emulator.fault({ pathPattern: "/auth/v1/passkeys/attestation/options", ...fault });
      const failed = await journey.postForm(`${SETUP}/start`, {}, optionsForFault(fault));
      expect(failed.status).toBe(status);
      expectModalIn(await failed.text(), modal);
      expect((await journey.postForm(`${SETUP}/start`, {})).headers.get("Location")).toBe(SETUP);
    },
  );

  it("is today's page where passkeys are off or the app's webview cannot use them; the start is refused there", async () => {
    const off = new Journey({ env: { PASSKEYS: "off" } });
    const { response } = await reachLoginScreen(off, GUNGNIR, "signUp");
    await response.body?.cancel();
    const email = unique("off");
    await off.postForm("/signUp/checkEmail", { email });
    await off.postForm("/signUp/inputPassword", { password: PASSWORD });
    const { response: step } = await off.follow(
      await off.postForm("/signUp/confirmMail", { code: await emulator.latestCode(email) }),
    );
    const html = await step.text();
    expect(html).toContain(screens.mfaSetup.totp);
    expect(html).toContain(screens.mfaSetup.sms);
    expect(html).not.toContain("PasskeyOffer");
    expect(off.has("__Host-sign-up-passkey")).toBe(false);
    expect((await off.postForm(`${SETUP}/start`, {})).status).toBe(400);

    const { journey } = await signedUp();
    journey.setCookie("__Host-webauthn=off; Path=/; Secure; SameSite=Strict");
    const page = await (await journey.request("/mfa/setup")).text();
    expect(page).toContain(screens.mfaSetup.totp);
    expect(page).not.toContain("PasskeyOffer");
  });
});

describe("a passkey counts as the second factor a brand requires (product §2's checks after sign-in)", () => {
  const brand = brandById(GUNGNIR.serviceId);
  let allowed: MfaType[] = [];
  beforeEach(() => {
    if (!brand) throw new Error("no gungnir-aurora brand");
    allowed = brand.mfaTypes;
    // A brand whose data would not allow NONE ('set up later'): the brand the worker resolves, in this isolate.
    brand.mfaTypes = allowed.filter((type) => type !== "NONE");
  });
  afterEach(() => {
    if (brand) brand.mfaTypes = allowed;
  });

  it("does not send a customer who signed in with their passkey to set up a code; a password alone still is", async () => {
    const { email, journey } = await signedUp();
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    await journey.postForm(`${SETUP}/start`, {});
    await onToApp(journey, await makePasskey(journey, authenticator));

    const { foreign, response } = await signedInByPasskey(authenticator);
    expect(new URL(response.url).pathname).not.toBe("/mfa/setup");
    expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);

    // The password is one factor whoever types it: the brand's checks send that sign-in to set one up.
    const byPassword = new Journey();
    const { response: screen } = await reachLoginScreen(byPassword, GUNGNIR, "signIn");
    await screen.body?.cancel();
    const login = await byPassword.postForm("/signIn", { username: email, password: PASSWORD });
    const { response: after } = await byPassword.follow(login);
    expect(new URL(after.url).pathname).toBe("/mfa/setup");
  });
});
