import jsQR from "jsqr";
import { TOTP } from "otpauth";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import type { View } from "../../worker/session/authRequest";
import { APP_STATE, type AppBrand, appStart } from "../support/appStart";
import { emulatorClient, PASSWORD } from "../support/emulatorClient";
import { httpsSiteUrl, withLocalCertificate } from "./browser";
import { type EnginePage, pageErrorsDuring, pathOf, submit, type Target, until } from "./enginePage";
import { appLogin, expectLoginClaims, LOGINS, type Login, nowSeconds } from "./journeys";

// The journeys of issue 22, written once against EnginePage and run in every engine (WebKitGTK, WPE, Firefox ESR),
// JavaScript on and off, over the HTTPS preview. Each makes its own users, addresses and phone numbers: the engines'
// files share that preview's emulator and run at the same time.

const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const PARTNER = { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner };
const NEW_PASSWORD = "N3w-Passw0rd!";
const SERVICE_TOP = "https://dev.aurora-sec.example/";

/** What a journey is given: its tab, and a name of its own for the users and addresses it makes. */
export interface JourneyRun {
  page: EnginePage;
  /** Unique to this run: the engine, the JavaScript setting and a random part. */
  unique: string;
}

/** The HTTPS preview's emulator (its developer endpoints), called with the locally made certificate. */
const idp = () =>
  emulatorClient((path, init) =>
    withLocalCertificate(() => fetch(`${httpsSiteUrl()}${path}`, { ...init, redirect: "manual" })),
  );

const email = (run: JourneyRun, what: string) => `${run.unique}.${what}@example.com`;
/** A Japanese mobile number of this run's own (the emulator's outbox is keyed by number). */
const newPhone = () => `090${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;

/** The brand's app opens the site for `view`; answers the app's start and what it will receive. */
async function openApp(run: JourneyRun, view: View, brand: AppBrand = GUNGNIR) {
  const start = await appStart(brand, view);
  const startedAt = nowSeconds();
  await run.page.go(`${httpsSiteUrl()}${start.path}`);
  return { ...start, brand, startedAt };
}
type OpenedApp = Awaited<ReturnType<typeof openApp>>;

/**
 * The app gets its code at its redirect URI with its own state and, as a real OIDC client, exchanges it: the
 * id_token claims `login`, made during this journey.
 */
async function expectAppLogin(run: JourneyRun, app: OpenedApp, login: Login): Promise<void> {
  const received = await run.page.reached(app.appRedirect);
  expect(received.searchParams.get("state")).toBe(APP_STATE);
  const claims = await withLocalCertificate(() =>
    appLogin(
      {
        serviceId: app.brand.serviceId,
        clientId: app.brand.clientId,
        startUrl: "",
        redirectUri: app.appRedirect,
        codeVerifier: app.verifier,
        received: Promise.resolve(received),
      },
      httpsSiteUrl(),
    ),
  );
  expectLoginClaims(claims, login, app.startedAt);
}

/** Fills and sends the sign-in form; waits for the next page unless the sign-in goes straight on to the app. */
async function signInForm(page: EnginePage, login: string, password = PASSWORD, { toApp = false } = {}) {
  const button = 'form[action="/signIn"] button[type="submit"]';
  expect(await page.visible(button)).toBe(1);
  await page.fill("#field-username", login);
  await page.fill("#field-password", password);
  await (toApp ? page.click(button) : submit(page, button));
}

/**
 * A new user of this run (`seed` adds to the account), whose app opens the site for `view` and who signs in with
 * the password; answers the login ID and the app.
 */
async function signedIn(
  run: JourneyRun,
  what: string,
  view: View,
  { brand = GUNGNIR, seed = {} }: { brand?: AppBrand; seed?: { emailVerified?: boolean } } = {},
) {
  const login = email(run, what);
  await idp().seed({ email: login, ...seed });
  const app = await openApp(run, view, brand);
  await signInForm(run.page, login);
  return { login, app };
}

/** SPEC §4: the 'two-factor set' modal, whose link hands over to the app; the login was the password alone. */
async function setUpHandsOver(run: JourneyRun, app: OpenedApp): Promise<void> {
  await submit(run.page, { button: "設定する" });
  expect(await openModalTitle(run.page)).toBe("認証が完了しました");
  await run.page.click({ link: "次へ" });
  await expectAppLogin(run, app, LOGINS.password);
}

/** The first of these targets that is visible: the popover's button, or its fallback link below the floor. */
async function visibleOf(page: EnginePage, ...targets: Target[]): Promise<Target> {
  for (const target of targets) if ((await page.visible(target)) > 0) return target;
  throw new Error(`none visible at ${await page.url()}: ${JSON.stringify(targets)}`);
}

/**
 * Opens the modal `name` by its control on the page (a popover, or the script-free fallback where the engine has
 * none, docs/browsers.md), checks that it shows `expected`, and closes it with `close`.
 */
async function openAndCloseModal(page: EnginePage, name: string, expected: string, close = "閉じる"): Promise<void> {
  const id = `${name}-modal`;
  const opener = await visibleOf(page, `button[popovertarget="${id}"]`, `a[href="#${id}"]`);
  expect(await page.visible(`#${id}`), `${id} closed at first`).toBe(0);
  await page.click(opener);
  await until(async () => (await page.visible(`#${id}`)) === 1, `${id} open`);
  expect(await page.text(`#${id}`)).toContain(expected);
  await page.click(await visibleOf(page, { button: close }, { link: close }));
  await until(async () => (await page.visible(`#${id}`)) === 0, `${id} closed`);
}

/** The new password typed is sent: the site says it changed, and the next sign-in with it reaches the app. */
async function changedPasswordSignsIn(run: JourneyRun, login: string): Promise<void> {
  await submit(run.page, { button: "変更する" });
  expect(await openModalTitle(run.page)).toBe("パスワードを変更しました");
  const again = await openApp(run, "signIn");
  await signInForm(run.page, login, NEW_PASSWORD, { toApp: true });
  await expectAppLogin(run, again, LOGINS.password);
}

/** A server-opened modal (a result or an error): its heading. */
const openModalTitle = (page: EnginePage) => page.text("dialog[open] .modal-title");

export const JOURNEYS: Record<string, (run: JourneyRun) => Promise<void>> = {
  async "sign-up, with the ID help and the back warning"(run) {
    const { page } = run;
    const app = await openApp(run, "signUp");
    expect(await page.visible('form[action="/signUp/checkEmail"]')).toBe(1);
    await openAndCloseModal(page, "whatIsId", "ID");
    const address = email(run, "new");
    await page.fill("#field-email", address);
    await submit(page, { button: "次へ" });
    expect(await pathOf(page)).toBe("/signUp/inputPassword");
    await openAndCloseModal(page, "signUpBackWarning", "削除", "キャンセル");
    await page.fill("#field-password", PASSWORD);
    await submit(page, { button: "登録する" });
    expect(await pathOf(page)).toBe("/signUp/confirmMail");
    await page.fill("#field-code", await idp().latestCode(address));
    await submit(page, { button: "次へ" });
    expect(await pathOf(page)).toBe("/mfa/setup");
    await page.click({ button: "あとで設定する" });
    await expectAppLogin(run, app, LOGINS.password);
  },

  async "sign-in with TOTP, then sign-out"(run) {
    const { page } = run;
    const login = email(run, "totp");
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    await idp().seed({ email: login, mfa: { totp: secret } });
    const app = await openApp(run, "extSignIn");
    expect((await page.cookies()).find((cookie) => cookie.name === "__Host-sign-in")?.secure).toBe(true);
    await signInForm(page, login);
    expect(await pathOf(page)).toBe("/signIn/mfa");
    await page.fill("#field-mfaCode", new TOTP({ secret }).generate());
    await page.click({ button: "ログイン" });
    await expectAppLogin(run, app, LOGINS.totp);
    // Sign-out (ARCHITECTURE §8): the site forgets every cookie and lands on the brand's service top.
    await page.go(`${httpsSiteUrl()}/logout?client_id=${GUNGNIR.clientId}`);
    await page.reached(SERVICE_TOP);
    const left = (await page.cookies()).map((cookie) => cookie.name).filter((name) => name !== "__Host-js");
    expect(left).toEqual([]);
  },

  async "sign-in with SMS, with the support, ID and SMS help"(run) {
    const { page } = run;
    const login = email(run, "sms");
    const phone = `+81${newPhone()}`;
    await idp().seed({ email: login, mfa: { sms: phone } });
    const app = await openApp(run, "extSignIn");
    await openAndCloseModal(page, "support", "お問い合わせ");
    await openAndCloseModal(page, "whatIsId", "ID");
    await signInForm(page, login);
    expect(await pathOf(page)).toBe("/signIn/mfa");
    expect(await page.text()).toContain("3分以内");
    await openAndCloseModal(page, "smsHelp", "SMS");
    await page.fill("#field-mfaCode", await idp().latestCode(phone));
    await page.click({ button: "ログイン" });
    await expectAppLogin(run, app, LOGINS.sms);
  },

  async "consent for the partner service"(run) {
    const { page } = run;
    const { app } = await signedIn(run, "partner", "extSignIn", { brand: PARTNER });
    expect(await pathOf(page)).toBe(`/${PARTNER.serviceId}/consent`);
    expect(await page.text()).toContain("口座の残高情報");
    await page.click({ button: "同意する" });
    await expectAppLogin(run, app, LOGINS.password);
  },

  async "password reset by the mailed link, with the mail help"(run) {
    const { page } = run;
    const login = email(run, "forgot");
    await idp().seed({ email: login });
    await openApp(run, "signIn");
    await submit(page, { link: "パスワードをお忘れの方はこちら" });
    expect(await pathOf(page)).toBe("/resetPassword");
    await page.fill("#field-email", login);
    await submit(page, { button: "送信する" });
    expect(await pathOf(page)).toBe("/resetPassword/sendMail");
    await openAndCloseModal(page, "mailHelp", "迷惑メール");
    await page.go((await idp().latest(login)).link ?? "");
    await page.fill("#field-newPassword", NEW_PASSWORD);
    await changedPasswordSignsIn(run, login);
  },

  async "change password"(run) {
    const { page } = run;
    const { login } = await signedIn(run, "pw", "passwordChange");
    expect(await pathOf(page)).toBe("/changePassword");
    await page.fill("#field-currentPassword", PASSWORD);
    await page.fill("#field-newPassword", NEW_PASSWORD);
    await changedPasswordSignsIn(run, login);
  },

  async "change e-mail through the links to both addresses"(run) {
    const { page } = run;
    const { login: old } = await signedIn(run, "old", "emailChange");
    const fresh = email(run, "fresh");
    expect(await pathOf(page)).toBe("/changeEmail");
    await page.fill("#field-newEmail", fresh);
    await submit(page, { button: "メールを送信" });
    expect(await openModalTitle(page)).toBe("確認メールを送信しました");
    await page.go((await idp().latest(old)).link ?? "");
    expect(await page.text()).toContain("メールアドレスの変更は完了していません");
    await page.go((await idp().latest(fresh)).link ?? "");
    expect(await page.text()).toContain("メールアドレスの変更が完了しました");
  },

  async "register an e-mail after a sign-in with an unverified one"(run) {
    const { page } = run;
    const { app } = await signedIn(run, "unverified", "signIn", { seed: { emailVerified: false } });
    const fresh = email(run, "registered");
    expect(await pathOf(page)).toBe("/registerEmail");
    await page.fill("#field-email", fresh);
    await submit(page, { button: "確認コードを送信" });
    await page.fill("#field-code", await idp().latestCode(fresh));
    await submit(page, { button: "次へ" });
    expect(await openModalTitle(page)).toBe("確認コードを確認しました");
    await submit(page, { link: "次へ進む" });
    expect(await pathOf(page)).toBe("/mfa/setup");
    await page.click({ button: "あとで設定する" });
    await expectAppLogin(run, app, LOGINS.password);
  },

  async "TOTP setup from the QR code read off a screenshot"(run) {
    const { page } = run;
    const { app } = await signedIn(run, "totpsetup", "mfaSetUp");
    expect(await pathOf(page)).toBe("/mfa/setup");
    await submit(page, { link: "認証アプリで設定する" });
    await until(async () => (await page.visible(".qr svg")) === 1, "the QR code");
    const image = PNG.sync.read(await page.screenshot(".qr"));
    const scanned = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? "";
    const secret = new URL(scanned).searchParams.get("secret") ?? "";
    expect(scanned).toMatch(/^otpauth:\/\/totp\//);
    expect(secret).toBe((await page.text("code.secret")).replace(/\s/g, ""));
    await page.fill("#field-mfaOtpCode", new TOTP({ secret }).generate());
    await setUpHandsOver(run, app);
  },

  async "SMS setup after the warning"(run) {
    const { page } = run;
    const { app } = await signedIn(run, "smssetup", "mfaSetUp");
    const phone = newPhone();
    await submit(page, { link: "SMSで設定する" });
    expect(await pathOf(page)).toBe("/mfa/setup/SMS");
    await page.fill("#field-phoneNumber", phone);
    // With script and the Popover API the warning opens over the page; otherwise it is a page of its own.
    await page.click({ button: "認証コードを送信" });
    await until(
      async () =>
        (await page.visible("#smsSendWarning-modal")) === 1 || (await pathOf(page)) === "/mfa/setup/SMS/warning",
      "the warning before the send",
    );
    expect(await idp().count(`+81${phone}`)).toBe(0);
    await submit(page, { button: "送信する" });
    expect(await pathOf(page)).toBe("/mfa/setup/SMS");
    await page.fill("#field-mfaOtpCode", await idp().latestCode(`+81${phone}`));
    await setUpHandsOver(run, app);
  },

  async "the 429 page: the sixth password for one login ID"(run) {
    const { page } = run;
    const login = email(run, "limited");
    await openApp(run, "signIn");
    for (let attempt = 1; attempt <= 11; attempt++) {
      // A wrong password opens the closable 'wrong login ID or password' modal: the user closes it first.
      if ((await page.visible("dialog[open]")) > 0) await page.click(await visibleOf(page, { button: "閉じる" }));
      await page.fill("#field-username", login);
      await page.fill("#field-password", "Wr0ngPassword!");
      await submit(page, 'form[action="/signIn"] button[type="submit"]');
      const title = await openModalTitle(page);
      if (title === "試行回数の上限に達しました") {
        // Fixed one-minute windows: the sixth try, or up to the eleventh when a window boundary splits them.
        expect(attempt).toBeGreaterThanOrEqual(6);
        expect(await pathOf(page)).toBe("/signIn");
        return;
      }
      expect(title).toBe("ログインIDまたはパスワードが間違っています");
    }
    throw new Error("no 429 within eleven tries");
  },

  async "an upstream fault shows the modal, and the next try works"(run) {
    const { page } = run;
    const login = email(run, "fault");
    await idp().seed({ email: login });
    const app = await openApp(run, "signIn");
    await idp().fault({ pathPattern: "/auth/v1/login", bodyIncludes: login, status: 500 });
    await signInForm(page, login);
    expect(await openModalTitle(page)).toBe("エラーが発生しました");
    await page.click(await visibleOf(page, { button: "閉じる" }));
    await until(async () => (await page.visible("dialog[open]")) === 0, "the modal closed");
    await page.fill("#field-password", PASSWORD);
    await page.click('form[action="/signIn"] button[type="submit"]');
    await expectAppLogin(run, app, LOGINS.password);
  },
};

/**
 * SPEC §4/§8 session guard (script only: without it there is no guard, and both tabs stay usable): the consent tab
 * is disabled once a second tab of the site is used, and the second keeps working.
 */
export async function sessionGuardJourney(run: JourneyRun): Promise<void> {
  const { page } = run;
  await signedIn(run, "guard", "extSignIn", { brand: PARTNER });
  const consent = await page.url();
  const guarded = '[data-island="SessionGuard"][data-hydrated]';
  await until(() => page.exec<boolean>(`return !!document.querySelector('${guarded}');`), "the guard hydrated");
  await page.click("main");
  const second = await page.newTab();
  try {
    await second.go(consent);
    await until(() => second.exec<boolean>(`return !!document.querySelector('${guarded}');`), "the second guard");
    await second.click("main");
    await until(async () => (await page.text("body")).includes("操作が中断されました"), "the first tab disabled");
    expect(await page.exec<boolean>(`return document.querySelector("main").closest("[inert]") !== null;`)).toBe(true);
    expect(await second.text("body")).not.toContain("操作が中断されました");
    expect(await second.visible({ button: "同意する" })).toBe(1);
  } finally {
    await second.close();
  }
}

/** What an engine cannot do, and so is not asked to: each with its reason, for the test's name and the docs. */
export interface EngineLimits {
  /** The browser opens no second tab under its driver (cog, WPE's browser, has one view): no session guard test. */
  oneTab?: string;
}

/**
 * Every journey in one engine, JavaScript on and off, each in a fresh window (its own cookie jar) that must end
 * with no uncaught page error reported; the session guard with script only (without, there is none).
 */
export function journeysIn(
  engine: string,
  openPage: (javaScript: boolean) => Promise<EnginePage>,
  limits: EngineLimits = {},
): void {
  for (const javaScript of [true, false]) {
    const mode = javaScript ? "js" : "nojs";
    const guard = javaScript && !limits.oneTab ? { "the session guard across two tabs": sessionGuardJourney } : {};
    describe(`${engine} with JavaScript ${javaScript ? "on" : "off"}`, () => {
      it.each(Object.entries({ ...JOURNEYS, ...guard }))("%s", async (_name, journey) => {
        const page = await openPage(javaScript);
        const unique = `${engine.replace(/\W/g, "").toLowerCase()}.${mode}.${crypto.randomUUID().slice(0, 8)}`;
        try {
          expect(await pageErrorsDuring(() => journey({ page, unique }))).toEqual([]);
        } finally {
          await page.close();
        }
      });
    });
  }
}
