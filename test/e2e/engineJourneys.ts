import { createHash, randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import jsQR from "jsqr";
import { TOTP } from "otpauth";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { fieldMessages } from "../../messages/ja";
import type { View } from "../../worker/session/authRequest";
import { APP_STATE, type AppBrand, appStart } from "../support/appStart";
import { CookieJar } from "../support/cookieJar";
import { devSessionKeys } from "../support/devKeys";
import { emulatorClient } from "../support/emulatorClient";
import { sealedCookie } from "../support/forms";
import { PHRASE_BREAK } from "../support/phraseBreaks";
import { DEVICE_CREDENTIAL_COOKIE, TEST_DEVICE_DIGEST } from "../support/testDevice";
import {
  GUNGNIR,
  LEMON,
  NEW_PASSWORD,
  OPERATION_REDIRECT_URI,
  PARTNER,
  PASSWORD,
  TOTP_SECRET,
  withdrawalPush,
} from "../support/vocabulary";
import { withLocalCertificate } from "./browser";
import {
  type Capability,
  capabilitiesOf,
  type EnginePage,
  type Key,
  leaving,
  needed,
  pathOf,
  reportedErrorsSince,
  submit,
  type Target,
  until,
} from "./enginePage";
import {
  type App,
  appLogin,
  expectLoginClaims,
  expectNothingSecretInPage,
  LOGINS,
  type Login,
  nowSeconds,
  openApp,
  secretsIn,
  testDeviceCredential,
} from "./journeys";

// Every browser journey is written here once, against EnginePage, and runs in every engine (Chromium, WebKitGTK,
// WPE, Firefox ESR), JavaScript on and off. Each makes its own users, addresses and phone numbers, and a fault it
// injects names its own login ID: an engine's site may be shared with another file running at the same time.

const SERVICE_TOP = "https://dev.aurora-sec.example/";
/** The name GUNGNIR's authenticator entries carry (its display name). */
const GUNGNIR_NAME = "オーロラ証券";

/** The site an engine's journeys use: its URL, and whether Node must accept its locally made certificate. */
export interface Site {
  url: string;
  https: boolean;
}

/** What a journey is given: its tab, its site, and a name of its own for the users and addresses it makes. */
export interface JourneyRun {
  page: EnginePage;
  site: Site;
  /** Unique to this run: the engine, the JavaScript setting and a random part. */
  unique: string;
  /**
   * The secrets no page may hold beyond those the journey typed: in an engine that sees requests, every challenge,
   * verifier and code the tab's requests carried so far; elsewhere none (the describe block's name says which).
   */
  networkSecrets(): string[];
}

/** A call from Node to the run's site: the HTTPS previews' certificate was made here. */
const fromNode = <T>(run: JourneyRun, call: () => Promise<T>): Promise<T> =>
  run.site.https ? withLocalCertificate(call) : call();

/** The run's site's emulator (its developer endpoints). */
const idp = (run: JourneyRun) =>
  emulatorClient((path, init) => fromNode(run, () => fetch(`${run.site.url}${path}`, { ...init, redirect: "manual" })));

const email = (run: JourneyRun, what: string) => `${run.unique}.${what}@example.com`;
/** A Japanese mobile number of this run's own (the emulator's outbox is keyed by number). */
const newPhone = () => `090${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;

type OpenedApp = App & { brand: AppBrand; startedAt: number };

/**
 * The brand's app opens the site for `view` (`openApp`), and the tab goes there: the app's start answers the
 * screen itself, with no redirect before the form.
 */
async function startApp(run: JourneyRun, view: View, brand: AppBrand = GUNGNIR): Promise<OpenedApp> {
  const app = await openApp(run.page, run.site.url, brand.serviceId, brand.clientId, view);
  const startedAt = nowSeconds();
  await run.page.go(app.startUrl);
  expect(await run.page.url()).toBe(app.startUrl);
  return { ...app, brand, startedAt };
}

/**
 * The app gets its code at its redirect URI with its own state and, as a real OIDC client, exchanges it: the
 * id_token claims `login`, made during this journey.
 */
async function expectAppLogin(run: JourneyRun, app: OpenedApp, login: Login): Promise<void> {
  const received = await app.received;
  expect(received.searchParams.get("state")).toBe(APP_STATE);
  expectLoginClaims(await fromNode(run, () => appLogin(app, run.site.url)), login, app.startedAt);
}

/** architecture §3 on the page the tab shows: none of `typed` (nor the network's secrets) in it. */
function expectNothingSecret(run: JourneyRun, ...typed: string[]): Promise<void> {
  return expectNothingSecretInPage(run.page, new URL(run.site.url).origin, [...typed, ...run.networkSecrets()]);
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
  {
    brand = GUNGNIR,
    seed = {},
  }: { brand?: AppBrand; seed?: { emailVerified?: boolean; mfa?: { totp: string } | { sms: string } } } = {},
) {
  const login = email(run, what);
  await idp(run).seed({ email: login, ...seed });
  const app = await startApp(run, view, brand);
  await signInForm(run.page, login);
  return { login, app };
}

/** A server-opened modal (a result or an error): its heading. */
const openModalTitle = (page: EnginePage) => page.text("dialog[open] .modal-title");

/**
 * Waits until the modal the server opened has the focus inside it and, with script, until the island has made it
 * modal: Escape is a modal's only (an open dialog that is not modal ignores it).
 */
async function serverModalReady(page: EnginePage): Promise<void> {
  await until(
    () => page.exec<boolean>(`return !!document.querySelector("dialog[open]")?.contains(document.activeElement);`),
    "the focus inside the open modal",
  );
  if (!page.javaScript) return;
  await until(
    () => page.exec<boolean>(`return document.querySelector("dialog[open]")?.matches(":modal") === true;`),
    "the server's modal made modal",
  );
}

/**
 * A modal the server opened after a refused POST (docs/accessibility.md): the focus starts inside it, so a screen
 * reader reads its title first. With script it is a true modal, Escape closes it and the focus goes back to the field
 * to fill in again.
 */
async function expectServerModalTakesFocus(page: EnginePage, refocused: string): Promise<void> {
  await serverModalReady(page);
  if (!page.javaScript) return;
  await page.press("Escape");
  await until(async () => (await countOf(page, "dialog[open]")) === 0, "Escape closed the modal");
  // The dialog's close event, which moves the focus, comes in a task after it closed.
  await until(
    async () => (await page.exec<string>("return document.activeElement?.id ?? '';")) === refocused,
    `the focus back on #${refocused}`,
  );
}

/** Where the keyboard focus is, as a keyboard-only user sees it. */
interface FocusStop {
  /** The element's id, else its tag and text. */
  name: string;
  /** Its top on the page (CSS px), for the reading order. */
  top: number;
  /** A focus indicator shows: an outline or a box shadow. */
  ring: boolean;
  /** In a dialog, whose place in the top layer or fixed overlay is not the card's order. */
  inDialog: boolean;
}

/**
 * A page script: where the focus is after a key press (a FocusStop, or null when no element of the page has it), and
 * whether it is on `css`, in one call.
 */
const focusStopAt = (css: string) => `const element = document.activeElement;
  if (!document.hasFocus() || !element || element === document.body || element === document.documentElement) return null;
  const style = getComputedStyle(element);
  return {
    name: element.id || element.tagName.toLowerCase() + ":" + (element.textContent || "").trim().slice(0, 30),
    top: element.getBoundingClientRect().top + scrollY,
    ring: (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none",
    inDialog: !!element.closest("dialog"),
    there: element.matches(${JSON.stringify(css)}),
  };`;

/**
 * Tabs (or Shift+Tabs) until the focus is on `css`, as a keyboard-only user does (docs/accessibility.md): every stop
 * on the way shows a focus indicator, and Tab walks the card from top to bottom (a stop in a dialog, or one after
 * the focus left the page and came back at its top, starts the order again). One page script before the presses and
 * one after each.
 */
async function tabTo(page: EnginePage, css: string): Promise<void> {
  // A script of the driver's that throws is reported as the page's error in WebKit: every one here is null-safe.
  // Back with Shift+Tab to a control above the focus: where Tab goes past the page's end is the browser's business.
  const startScript = `const target = document.querySelector(${JSON.stringify(css)});
    const focused = document.activeElement;
    return {
      there: focused?.matches(${JSON.stringify(css)}) === true,
      above: !!target && !!focused && focused !== document.body
        && !!(target.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING),
    };`;
  const start = await page.exec<{ there: boolean; above: boolean }>(startScript);
  if (start.there) return;
  const key = start.above ? "Shift+Tab" : "Tab";
  const seen: string[] = [];
  let previous: FocusStop | null = null;
  for (let press = 0; press < 30; press++) {
    await page.press(key);
    const stop = await page.exec<(FocusStop & { there: boolean }) | null>(focusStopAt(css));
    // Out of the page and back in at its other end: the order starts again.
    if (!stop || seen.includes(stop.name)) previous = null;
    if (!stop) continue;
    seen.push(stop.name);
    expect(stop.ring, `a focus indicator on ${stop.name}`).toBe(true);
    if (previous && !previous.inDialog && !stop.inDialog) {
      const forward = key === "Tab" ? stop.top - previous.top : previous.top - stop.top;
      expect(forward, `${key} from ${previous.name} to ${stop.name} follows the card`).toBeGreaterThan(-2);
    }
    if (stop.there) return;
    previous = stop;
  }
  throw new Error(`${key} never reached ${css}: ${seen.join(" → ")}`);
}

/** Presses `key` where the focus is and waits for the document it sends the browser to (`leaving`). */
function submitByKey(page: EnginePage, key: Key = "Enter"): Promise<void> {
  return leaving(page, () => page.press(key), `pressing ${key}`);
}

/** Tabs to the field `css` and types `text` there, the focus staying on it. */
async function typeInto(page: EnginePage, css: string, text: string): Promise<void> {
  await tabTo(page, css);
  await page.fill(css, text);
}

/** Closes a closable modal the server opened, by the keyboard: Escape with script, else Tab to 閉じる and Enter. */
async function closeServerModalByKeyboard(page: EnginePage): Promise<void> {
  await serverModalReady(page);
  if (page.javaScript) await page.press("Escape");
  else {
    await tabTo(page, "dialog[open] button");
    await page.press("Enter");
  }
  await until(async () => (await countOf(page, "dialog[open]")) === 0, "the modal closed");
}

/**
 * Opens the modal `name` by its control with the keyboard (Enter on the popover's button, or on the fallback link
 * where the engine has no popover), finds `expected` in it with the focus inside it, and closes it with Enter on
 * `close`; a closable one again by Escape where the engine has popovers (light dismiss, no script needed).
 */
async function openAndCloseModalByKeyboard(page: EnginePage, name: string, expected: string, close = "閉じる") {
  const id = `${name}-modal`;
  const opener = `button[popovertarget="${id}"], a[href="#${id}"]`;
  // Escape dismisses a closable popover (`popover="auto"`); a modal that must be answered (`manual`) stays.
  const escapes = await page.exec<boolean>(
    `return "popover" in HTMLElement.prototype && document.getElementById(${JSON.stringify(id)}).popover === "auto";`,
  );
  const open = async () => {
    await tabTo(page, opener);
    await page.press("Enter");
    await until(async () => (await page.visible(`#${id}`)) === 1, `${id} open`);
  };
  await open();
  expect(await page.text(`#${id}`)).toContain(expected);
  const closer = `#${id} button[popovertargetaction="hide"], #${id} a.modal-fallback`;
  await tabTo(page, closer);
  await page.press("Enter");
  await until(async () => (await page.visible(`#${id}`)) === 0, `${id} closed by ${close}`);
  if (!escapes) return;
  await open();
  await tabTo(page, closer);
  await page.press("Escape");
  await until(async () => (await page.visible(`#${id}`)) === 0, `${id} closed by Escape`);
}

/** An element's text in a page script, as it reads: without the phrase-boundary markers. */
const textAsRead = (element: string) => `${element}.textContent.split(${JSON.stringify(PHRASE_BREAK)}).join("").trim()`;
/** How many elements match `css` in the document, shown or not, with exactly `text` if given. */
const countOf = (page: EnginePage, css: string, text?: string) =>
  page.exec<number>(`return [...document.querySelectorAll(${JSON.stringify(css)})]
    .filter((element) => ${JSON.stringify(text ?? null)} === null || ${textAsRead("element")} === ${JSON.stringify(text ?? "")})
    .length;`);
/** The value of the field `css`. */
const fieldValue = (page: EnginePage, css: string) =>
  page.exec<string>(`return document.querySelector(${JSON.stringify(css)}).value;`);
/** The `href` of the first link in `within` whose text is `text`. */
const hrefOf = (page: EnginePage, within: string, text: string) =>
  page.exec<string | null>(`return [...document.querySelectorAll(${JSON.stringify(`${within} a`)})]
    .find((link) => ${textAsRead("link")} === ${JSON.stringify(text)})?.getAttribute("href") ?? null;`);
/** The page's query parameter `name`. */
const queryOf = async (page: EnginePage, name: string) => new URL(await page.url()).searchParams.get(name);
/** The first heading's text. */
const headingOf = (page: EnginePage) => page.text("h1");

/** product §4: the 'two-factor set' modal, whose link hands over to the app; the login was the password alone. */
async function setUpHandsOver(run: JourneyRun, app: OpenedApp): Promise<void> {
  await submit(run.page, { button: "設定する" });
  expect(await openModalTitle(run.page)).toBe("認証が完了しました");
  expect(await run.page.text("dialog[open]")).toContain("2段階認証を設定しました");
  await run.page.click({ link: "次へ" });
  await expectAppLogin(run, app, LOGINS.password);
}

/** The user signs out (the site forgets every cookie) and in again: the login now asks for the factor just set. */
async function signInAgainWith(
  run: JourneyRun,
  login: string,
  title: string,
  code: () => Promise<string>,
  claims: Login,
): Promise<void> {
  await run.page.go(`${run.site.url}/logout?client_id=${GUNGNIR.clientId}`);
  await run.page.reached(SERVICE_TOP);
  const again = await startApp(run, "signIn");
  await signInForm(run.page, login);
  expect(await pathOf(run.page)).toBe("/signIn/mfa");
  expect(await headingOf(run.page)).toBe(title);
  await run.page.fill("#field-mfaCode", await code());
  await run.page.click({ button: "ログイン" });
  await expectAppLogin(run, again, claims);
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

/** From the app's sign-in screen to the mail-sent page, by the screens' own links and forms. */
async function askForResetMail(run: JourneyRun, login: string): Promise<OpenedApp> {
  const { page } = run;
  const app = await startApp(run, "signIn");
  await submit(page, { link: "パスワードをお忘れの方はこちら" });
  expect(await page.url()).toBe(`${run.site.url}/resetPassword?client_id=${GUNGNIR.clientId}`);
  await page.fill("#field-email", login);
  await submit(page, { button: "送信する" });
  expect(await page.url()).toBe(`${run.site.url}/resetPassword/sendMail?client_id=${GUNGNIR.clientId}`);
  expect(await page.text()).toContain("60分以内");
  return app;
}

/** A journey, and what it needs of an engine beyond EnginePage's methods. */
export interface Journey {
  run(run: JourneyRun): Promise<void>;
  /** Capabilities the journey uses: it is registered only in the engines that have them, and its name says so. */
  needs?: Capability[];
  /** Script on only: without it the journey has nothing to test. */
  scriptOnly?: boolean;
  /** Uses a second tab of the browser. */
  twoTabs?: boolean;
  /**
   * Starts as a browser that never signed in: without the test device's credential (test/support/testDevice.ts), which
   * every other journey's tab holds before its first visit, so that the new-device confirmation is what it is about.
   */
  newDevice?: boolean;
  /**
   * A journey about a rule of the server (a limit, a fault, a timing, a list, the order of login steps), which no
   * engine can get wrong: the rule is proven in workerd by the tests named here ("file › test name"), and the journey
   * shows it end to end once, in Chromium with script on (docs/testing.md, "Journeys by layer").
   */
  serverRule?: { provenIn: readonly string[] };
}

export const JOURNEYS: Record<string, Journey> = {
  // By the keyboard alone, as the sign-in journey above: the modals the page's controls open too.
  "keyboard only: sign-up: a taken address is told, a new one signs up with the mailed code; the ID help and the back warning":
    {
      async run(run) {
        const { page } = run;
        const taken = email(run, "taken");
        await idp(run).seed({ email: taken });
        const app = await startApp(run, "signUp");
        expect(await page.visible('form[action="/signUp/checkEmail"]')).toBe(1);
        await openAndCloseModalByKeyboard(page, "whatIsId", "ID");
        await typeInto(page, "#field-email", taken);
        await submitByKey(page);
        expect(await page.text("body")).toContain("既にアカウントをお持ちかもしれません");
        if ((await page.visible("dialog[open]")) > 0) await closeServerModalByKeyboard(page);
        const address = email(run, "new");
        await typeInto(page, "#field-email", address);
        await submitByKey(page);
        expect(await pathOf(page)).toBe("/signUp/inputPassword");
        await expectNothingSecret(run, PASSWORD);
        await openAndCloseModalByKeyboard(page, "signUpBackWarning", "削除", "キャンセル");
        await typeInto(page, "#field-password", PASSWORD);
        await submitByKey(page);
        expect(await pathOf(page)).toBe("/signUp/confirmMail");
        await typeInto(page, "#field-code", await idp(run).latestCode(address));
        await submitByKey(page);
        // View signUp continues to MFA setup (product §2); GUNGNIR allows none, so "later" hands over to the app.
        expect(await pathOf(page)).toBe("/mfa/setup");
        await expectNothingSecret(run, PASSWORD);
        await tabTo(page, 'form[action="/mfa/setup/skip"] button');
        await page.press("Space");
        // The sign-up signs in with the new password (the mailed code proves the mailbox, not the person).
        await expectAppLogin(run, app, LOGINS.password);
      },
    },

  // By the keyboard alone (docs/accessibility.md): the fields, the refusal's modal and the code are reached by Tab
  // and sent by Enter, every stop with a focus indicator, in the card's order.
  "keyboard only: a wrong password, then the right one and the TOTP code; then sign-out": {
    async run(run) {
      const { page } = run;
      const login = email(run, "totp");
      await idp(run).seed({ email: login, mfa: { totp: TOTP_SECRET } });
      const app = await startApp(run, "extSignIn");
      expect((await page.cookies()).find((cookie) => cookie.name === "__Host-sign-in")?.secure).toBe(true);
      await typeInto(page, "#field-username", login);
      await typeInto(page, "#field-password", "Wr0ngPassword!");
      await submitByKey(page);
      expect(await openModalTitle(page)).toBe("ログインIDまたはパスワードが間違っています");
      // The focus starts in the server's modal; with script, Escape closes it and puts the focus back on the password.
      await expectServerModalTakesFocus(page, "field-password");
      if (!page.javaScript) await closeServerModalByKeyboard(page);
      // The login ID is kept, the password is not.
      expect(await fieldValue(page, "#field-username")).toBe(login);
      expect(await fieldValue(page, "#field-password")).toBe("");
      await typeInto(page, "#field-password", PASSWORD);
      await submitByKey(page);
      expect(await pathOf(page)).toBe("/signIn/mfa");
      expect(await headingOf(page)).toBe("ワンタイムパスワード認証");
      await expectNothingSecret(run, PASSWORD);
      await typeInto(page, "#field-mfaCode", new TOTP({ secret: TOTP_SECRET }).generate());
      await page.press("Enter");
      await expectAppLogin(run, app, LOGINS.totp);
      // Sign-out (architecture §8): the site forgets every cookie and lands on the brand's service top.
      await page.go(`${run.site.url}/logout?client_id=${GUNGNIR.clientId}`);
      await page.reached(SERVICE_TOP);
      // Every cookie but the device credential, which sign-out keeps (docs/devices.md). W3C WebDriver reads the
      // cookies of the tab's own site: the tab goes back to the site's static file, which sets none.
      await page.go(`${run.site.url}/blocked-tab.svg`);
      const left = (await page.cookies()).map((cookie) => cookie.name);
      expect(left).toEqual([DEVICE_CREDENTIAL_COOKIE]);
    },
  },

  "a first sign-in from a new device is confirmed by the mailed code; the next sign-in from the same browser asks for no code":
    {
      newDevice: true,
      async run(run) {
        const { page } = run;
        const login = email(run, "newdevice");
        await idp(run).seed({ email: login, mfa: { totp: TOTP_SECRET } });
        const codesMailed = async () => (await idp(run).outbox(login)).filter((mail) => mail.code).length;
        const app = await startApp(run, "extSignIn");
        await signInForm(page, login);
        expect(await pathOf(page)).toBe("/signIn/mfa");
        await page.fill("#field-mfaCode", new TOTP({ secret: TOTP_SECRET }).generate());
        await submit(page, { button: "ログイン" });
        // docs/devices.md: after the password and the second factor, the new device's code, mailed to the address.
        expect(await pathOf(page)).toBe("/signIn/device");
        expect(await headingOf(page)).toBe("新しい端末からのログイン");
        const masked = `${login.slice(0, 1)}***@example.com`;
        expect(await page.text()).toContain(`${masked} 宛に6桁の確認コードを送信しました`);
        const credential = (await page.cookies()).find((cookie) => cookie.name === DEVICE_CREDENTIAL_COOKIE);
        expect(credential && { secure: credential.secure, httpOnly: credential.httpOnly }).toEqual({
          secure: true,
          httpOnly: true,
        });
        expect(await codesMailed()).toBe(1);
        // 「確認コードを再送する」 mails a new code, the page stays.
        await submit(page, { button: "確認コードを再送する" });
        expect(await pathOf(page)).toBe("/signIn/device");
        expect(await codesMailed()).toBe(2);
        const code = await idp(run).latestCode(login);
        await expectNothingSecret(run, PASSWORD, code);
        await page.fill("#field-code", code);
        await page.click({ button: "ログイン" });
        await expectAppLogin(run, app, LOGINS.totp);
        // The same browser is known now: its next sign-in asks for the second factor and no device code.
        const again = await startApp(run, "extSignIn");
        await signInForm(page, login);
        expect(await pathOf(page)).toBe("/signIn/mfa");
        await page.fill("#field-mfaCode", new TOTP({ secret: TOTP_SECRET }).generate());
        await page.click({ button: "ログイン" });
        await expectAppLogin(run, again, LOGINS.totp);
        expect(await codesMailed()).toBe(2);
      },
    },

  "sign-in with SMS, with the support, ID and SMS help": {
    async run(run) {
      const { page } = run;
      const login = email(run, "sms");
      const phone = `+81${newPhone()}`;
      await idp(run).seed({ email: login, mfa: { sms: phone } });
      const app = await startApp(run, "extSignIn");
      await openAndCloseModal(page, "support", "お問い合わせ");
      await openAndCloseModal(page, "whatIsId", "ID");
      await signInForm(page, login);
      expect(await pathOf(page)).toBe("/signIn/mfa");
      expect(await headingOf(page)).toBe("SMS認証");
      expect(await page.text()).toContain("3分以内");
      await openAndCloseModal(page, "smsHelp", "SMS");
      await page.fill("#field-mfaCode", await idp(run).latestCode(phone));
      await page.click({ button: "ログイン" });
      await expectAppLogin(run, app, LOGINS.sms);
    },
  },

  // The account must change its password because the one typed is on the leaked list (docs/security.md, "Leaked
  // passwords"); the emulator's own forced change (`forceChangePassword`) leads to the same screen, checked in workerd.
  "a password leaked elsewhere must be changed after signing in, then the app opens": {
    serverRule: {
      provenIn: [
        "test/worker/leakedPasswords.test.ts › goes through the forced new password, which refuses a listed one too, before the app",
        "test/worker/leakedPasswords.test.ts › asks the second factor first: a stranger with the password alone reaches no new-password step and changes nothing",
      ],
    },
    async run(run) {
      const { page } = run;
      const login = email(run, "force");
      const leaked = `Lk-${crypto.randomUUID().slice(0, 12)}9Z`;
      await idp(run).leakPassword(leaked);
      await idp(run).seed({ email: login, password: leaked });
      const app = await startApp(run, "signIn");
      await signInForm(page, login, leaked);
      expect(await pathOf(page)).toBe("/changePasswordInForceChangePassword");
      await page.fill("#field-newPassword", NEW_PASSWORD);
      await page.click({ button: "変更する" });
      await expectAppLogin(run, app, LOGINS.password);
    },
  },

  "a user in system transfer is refused with the notice; LEMON mails a reset link, GUNGNIR does not": {
    serverRule: {
      provenIn: [
        "test/worker/resetPassword.test.ts › sign-in shows REQUIRE_PASSWORD_INIT and mails the initiation link, whose page sets the password",
      ],
    },
    async run(run) {
      const { page } = run;
      for (const [brand, mailsReset] of [
        [LEMON, true],
        [GUNGNIR, false],
      ] as const) {
        const login = email(run, `transfer.${brand.serviceId}`);
        await idp(run).seed({ email: login, transferInProgress: true });
        await startApp(run, "signIn", brand);
        await signInForm(page, login);
        expect(await page.text("body")).toContain("レモンネット証券");
        expect(await idp(run).count(login)).toBe(mailsReset ? 1 : 0);
        if (mailsReset) expect((await idp(run).latest(login)).link).toContain("/liqueur-lemon/initiatePassword?");
      }
    },
  },

  "consent for the partner service: agree": {
    async run(run) {
      const { page } = run;
      const { app } = await signedIn(run, "partner", "extSignIn", { brand: PARTNER });
      expect(await pathOf(page)).toBe(`/${PARTNER.serviceId}/consent`);
      const body = await page.text("body");
      expect(body).toContain("カケイボクラウド");
      expect(body).toContain("口座の残高情報");
      await expectNothingSecret(run, PASSWORD);
      await page.click({ button: "同意する" });
      // The partner's app asked for openid: its code brings an id_token, with the login behind the consent.
      await expectAppLogin(run, app, LOGINS.password);
    },
  },

  "consent for the partner service: decline, back to the service top": {
    async run(run) {
      const { page } = run;
      await signedIn(run, "decline", "extSignIn", { brand: PARTNER });
      expect(await pathOf(page)).toBe(`/${PARTNER.serviceId}/consent`);
      await page.click({ link: "同意しない（サービスのトップへ戻る）" });
      expect((await page.reached("https://dev.")).hostname).toMatch(/^dev\.[a-z-]+\.example$/);
    },
  },

  // By the keyboard alone up to the app, as the sign-in journey above; the next sign-in clicks.
  "keyboard only: password reset by the mailed link, with the mail help; back to the app, then signs in with it": {
    async run(run) {
      const { page } = run;
      const login = email(run, "forgot");
      await idp(run).seed({ email: login });
      await startApp(run, "signIn");
      await tabTo(page, 'a[href^="/resetPassword"]');
      await submitByKey(page);
      expect(await page.url()).toBe(`${run.site.url}/resetPassword?client_id=${GUNGNIR.clientId}`);
      await typeInto(page, "#field-email", login);
      await submitByKey(page);
      expect(await page.url()).toBe(`${run.site.url}/resetPassword/sendMail?client_id=${GUNGNIR.clientId}`);
      expect(await page.text()).toContain("60分以内");
      await openAndCloseModalByKeyboard(page, "mailHelp", "迷惑メールフォルダ");
      const link = new URL((await idp(run).latest(login)).link ?? "");
      expect(`${link.origin}${link.pathname}`).toBe(`${run.site.url}/${GUNGNIR.serviceId}/forgotPassword`);
      await page.go(link.toString());
      // The link's GET keeps the code in a cookie and leads to its page without it (docs/browsers.md).
      expect(await page.url()).toBe(
        `${run.site.url}/${GUNGNIR.serviceId}/forgotPassword?client_id=${GUNGNIR.clientId}`,
      );
      expect(await headingOf(page)).toBe("パスワードの再設定");
      await typeInto(page, "#field-newPassword", NEW_PASSWORD);
      if (page.javaScript) {
        // The live checklist (product §5) follows what is typed.
        await until(async () => (await countOf(page, '.checklist-row[data-met="true"]')) === 6, "six rules met");
      }
      await submitByKey(page);
      expect(await openModalTitle(page)).toBe("パスワードを変更しました");
      // Not closable: the only way on is back to the app.
      expect(await countOf(page, "dialog[open] button", "閉じる")).toBe(0);
      expect(await fieldValue(page, "#field-newPassword")).toBe("");
      await expectNothingSecret(run, NEW_PASSWORD);
      // From the modal's heading, which has the focus, to its one way on.
      await tabTo(page, "dialog[open] a.button");
      expect(await page.text("dialog[open] a.button")).toBe("アプリに戻る");
      await page.press("Enter");
      expect((await page.reached(`https://app.${GUNGNIR.serviceId}.example/`)).toString()).toBe(
        `https://app.${GUNGNIR.serviceId}.example/`,
      );
      const again = await startApp(run, "signIn");
      await signInForm(page, login, NEW_PASSWORD, { toApp: true });
      await expectAppLogin(run, again, LOGINS.password);
    },
  },

  "password reset: an unknown address gets the same mail-sent page, and no mail": {
    serverRule: {
      provenIn: [
        "test/worker/resetPassword.test.ts › answers a known and an unknown address with the same response and the same next page",
      ],
    },
    async run(run) {
      const login = email(run, "nobody");
      await askForResetMail(run, login);
      expect(await idp(run).count(login)).toBe(0);
    },
  },

  "password reset: a link whose code was changed is invalid, its way on asks for a new mail, the old password works": {
    serverRule: {
      provenIn: [
        "test/worker/resetPassword.test.ts › says a wrong code's link is invalid (400), with a new mail as the way on",
      ],
    },
    async run(run) {
      const { page } = run;
      const login = email(run, "tampered");
      await idp(run).seed({ email: login });
      await askForResetMail(run, login);
      const link = new URL((await idp(run).latest(login)).link ?? "");
      link.searchParams.set("code", link.searchParams.get("code") === "000000" ? "111111" : "000000");
      await page.go(link.toString());
      await page.fill("#field-newPassword", NEW_PASSWORD);
      await submit(page, { button: "変更する" });
      expect(await page.text("#message-modal")).toContain("このリンクは無効です");
      await submit(page, { link: "メールを送信し直す" });
      expect(await page.url()).toBe(`${run.site.url}/resetPassword?client_id=${GUNGNIR.clientId}`);
      const later = await startApp(run, "signIn");
      await signInForm(page, login, PASSWORD, { toApp: true });
      await expectAppLogin(run, later, LOGINS.password);
    },
  },

  "password reset at its fixed answer time: a slow upstream still gives the mail-sent page, and the mail goes out": {
    serverRule: {
      provenIn: [
        "test/worker/resetPassword.test.ts › answers at the deployed fixed time: known, unknown, failing and slow-upstream addresses, and 0 outside dev",
      ],
    },
    async run(run) {
      const login = email(run, "slow");
      await idp(run).seed({ email: login });
      await idp(run).fault({ pathPattern: "/auth/v1/password/forgot", bodyIncludes: login, delayMs: 3000 });
      await askForResetMail(run, login);
      await until(async () => (await idp(run).count(login)) === 1, "the mail sent after the slow upstream");
    },
  },

  "password reset: an upstream failure in time shows its modal, a later one leaves the mail-sent page": {
    serverRule: {
      provenIn: [
        "test/worker/resetPassword.test.ts › answers at the deployed fixed time: known, unknown, failing and slow-upstream addresses, and 0 outside dev",
      ],
    },
    async run(run) {
      const { page } = run;
      const early = email(run, "maintenance.early");
      const maintenance = { status: 503, body: { type: "maintenance" } };
      await idp(run).fault({ pathPattern: "/auth/v1/password/forgot", bodyIncludes: early, ...maintenance });
      await page.go(`${run.site.url}/resetPassword?client_id=${GUNGNIR.clientId}`);
      await page.fill("#field-email", early);
      await submit(page, { button: "送信する" });
      expect(await pathOf(page)).toBe("/resetPassword");
      expect(await page.text("#message-modal")).toContain("システムメンテナンス中");
      const late = email(run, "maintenance.late");
      await idp(run).fault({
        pathPattern: "/auth/v1/password/forgot",
        bodyIncludes: late,
        delayMs: 3000,
        ...maintenance,
      });
      await askForResetMail(run, late);
    },
  },

  "change password: a wrong current one is refused, the right one changes it": {
    async run(run) {
      const { page } = run;
      const { login } = await signedIn(run, "pw", "passwordChange");
      expect(await pathOf(page)).toBe("/changePassword");
      await page.fill("#field-currentPassword", "Wr0ng-Passw0rd!");
      await page.fill("#field-newPassword", NEW_PASSWORD);
      await submit(page, { button: "変更する" });
      expect(await page.text("body")).toContain("正しいパスワードを入力してください");
      expect(await fieldValue(page, "#field-currentPassword")).toBe("");
      if ((await page.visible("dialog[open]")) > 0) await page.click(await visibleOf(page, { button: "閉じる" }));
      await page.fill("#field-currentPassword", PASSWORD);
      await page.fill("#field-newPassword", NEW_PASSWORD);
      await submit(page, { button: "変更する" });
      // Every other device is signed out; passkeys stay, and the way on is their list.
      expect(await page.text("dialog[open]")).toContain("ほかの端末はすべてログアウトしました");
      expect(await hrefOf(page, "dialog[open]", "パスキーを確認する")).toBe("/passkeys");
      await changedPasswordSignsInAfterModal(run, login);
    },
  },

  "change e-mail through the links to both addresses": {
    async run(run) {
      const { page } = run;
      const { login: old } = await signedIn(run, "old", "emailChange");
      const fresh = email(run, "fresh");
      expect(await pathOf(page)).toBe("/changeEmail");
      await page.fill("#field-newEmail", fresh);
      await submit(page, { button: "メールを送信" });
      expect(await openModalTitle(page)).toBe("確認メールを送信しました");
      expect(await idp(run).count(fresh)).toBe(0);
      await page.go((await idp(run).latest(old)).link ?? "");
      expect(await pathOf(page)).toBe(`/${GUNGNIR.serviceId}/changeEmail`);
      expect(await queryOf(page, "result")).toBe("sent_to_new_email");
      expect(await page.text("body")).toContain("メールアドレスの変更は完了していません");
      expect(await hrefOf(page, "body", "サービスのトップへ戻る")).toBeNull();
      await page.go((await idp(run).latest(fresh)).link ?? "");
      expect(await queryOf(page, "result")).toBe("completed");
      expect(await page.text("body")).toContain("メールアドレスの変更が完了しました");
      expect(await hrefOf(page, "body", "サービスのトップへ戻る")).toBe(SERVICE_TOP);
    },
  },

  "register an e-mail after a sign-in with an unverified one, then MFA setup hands over": {
    async run(run) {
      const { page } = run;
      const { app } = await signedIn(run, "unverified", "signIn", { seed: { emailVerified: false } });
      const fresh = email(run, "registered");
      expect(await pathOf(page)).toBe("/registerEmail");
      expect(await page.text("body")).toContain("確認コードの有効期限は1時間です。");
      await page.fill("#field-email", fresh);
      await submit(page, { button: "確認コードを送信" });
      expect(await pathOf(page)).toBe("/registerEmail");
      expect(await page.url()).not.toContain(encodeURIComponent(fresh));
      expect(await page.text("body")).toContain(`${fresh} 宛に6桁の確認コードを送信しました。`);
      await page.fill("#field-code", await idp(run).latestCode(fresh));
      await submit(page, { button: "次へ" });
      expect(await openModalTitle(page)).toBe("確認コードを確認しました");
      await expectNothingSecret(run, PASSWORD);
      await submit(page, { link: "次へ進む" });
      // /callback marked that MFA setup follows (product §2); this brand allows none, so "later" hands over to the app.
      expect(await pathOf(page)).toBe("/mfa/setup");
      await page.click({ button: "あとで設定する" });
      await expectAppLogin(run, app, LOGINS.password);
    },
  },

  "TOTP setup from the QR code read off a screenshot, then the next sign-in asks for its code": {
    async run(run) {
      const { page } = run;
      const { app, login } = await signedIn(run, "totpsetup", "mfaSetUp");
      expect(await pathOf(page)).toBe("/mfa/setup");
      await expectChoicesWithoutPasskey(page);
      // The secret arrives late: with script the spinner held its place (the "streaming" journey sees it), without
      // the page comes whole; either way the page ends with the QR code and no spinner.
      await idp(run).fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", delayMs: 1500 });
      await submit(page, { link: "認証アプリで設定する" });
      expect(await pathOf(page)).toBe("/mfa/setup/TOTP");
      await until(async () => (await page.visible(".qr svg")) === 1, "the QR code");
      expect(await countOf(page, "dialog.spinner")).toBe(0);
      const secret = await page.text("code.secret");
      expect(secret.replace(/\s/g, "")).toMatch(/^[A-Z2-7]{32}$/);
      expect(await countOf(page, "code.secret .secret-group")).toBe(8);
      const image = PNG.sync.read(await page.screenshot(".qr"));
      const scanned = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? "";
      const brand = encodeURIComponent(GUNGNIR_NAME);
      const plain = secret.replace(/\s/g, "");
      expect(scanned).toBe(`otpauth://totp/${brand}:${encodeURIComponent(login)}?secret=${plain}&issuer=${brand}`);
      // The copy button is script's: without it there is nothing to press.
      expect(await countOf(page, "button", "コピー")).toBe(page.javaScript ? 1 : 0);
      await expectNothingSecret(run, PASSWORD);
      await page.fill("#field-mfaOtpCode", new TOTP({ secret: plain }).generate());
      await setUpHandsOver(run, app);
      await signInAgainWith(
        run,
        login,
        "ワンタイムパスワード認証",
        async () => new TOTP({ secret: plain }).generate(),
        LOGINS.totp,
      );
    },
  },

  "SMS setup after the warning, then the next sign-in asks for a code": {
    async run(run) {
      const { page } = run;
      const { app, login } = await signedIn(run, "smssetup", "mfaSetUp");
      const phone = newPhone();
      await submit(page, { link: "SMSで設定する" });
      expect(await pathOf(page)).toBe("/mfa/setup/SMS");
      await page.fill("#field-phoneNumber", phone);
      // With script and the Popover API the warning opens over the page; otherwise it is a page of its own.
      await page.click({ button: "認証コードを送信" });
      // Without script the address changes when the warning page's response starts, before its document is read:
      // the wait is for the heading itself, never for the address alone.
      await until(
        async () =>
          (await page.visible("#smsSendWarning-modal")) === 1 ||
          ((await pathOf(page)) === "/mfa/setup/SMS/warning" &&
            (await countOf(page, "h1, h2, h3", "SMSの送信について")) === 1),
        "the warning before the send",
      );
      if ((await pathOf(page)) === "/mfa/setup/SMS/warning") {
        expect(await page.text()).toContain("SMSの送信について");
        expect(await page.text()).toContain(phone);
      } else expect(await page.text("#smsSendWarning-modal")).toContain("SMSの送信について");
      expect(await idp(run).count(`+81${phone}`)).toBe(0);
      await submit(page, { button: "送信する" });
      expect(await pathOf(page)).toBe("/mfa/setup/SMS");
      expect(await idp(run).count(`+81${phone}`)).toBe(1);
      expect(await page.text()).toContain(`${phone} 宛に認証コードを送信しました`);
      await expectNothingSecret(run, PASSWORD);
      await page.fill("#field-mfaOtpCode", await idp(run).latestCode(`+81${phone}`));
      await setUpHandsOver(run, app);
      await signInAgainWith(run, login, "SMS認証", () => idp(run).latestCode(`+81${phone}`), LOGINS.sms);
    },
  },

  "the 429 page: a wrong password is told and keeps the login ID, the sixth is refused": {
    serverRule: {
      provenIn: [
        "test/worker/rateLimit.test.ts › credential, per subject: the sixth password for one login ID in a minute gets 429, from any address",
      ],
    },
    async run(run) {
      const { page } = run;
      const login = email(run, "limited");
      await idp(run).seed({ email: login });
      await startApp(run, "signIn");
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
        if (attempt === 1) await expectServerModalTakesFocus(page, "field-password");
        expect(await fieldValue(page, "#field-username")).toBe(login);
        expect(await fieldValue(page, "#field-password")).toBe("");
      }
      throw new Error("no 429 within eleven tries");
    },
  },

  "an upstream fault shows the modal, and the next try signs in without a second factor": {
    serverRule: {
      provenIn: ["test/worker/faultMatrix.test.ts › fault matrix: every upstream call × every fault"],
    },
    async run(run) {
      const { page } = run;
      const login = email(run, "fault");
      await idp(run).seed({ email: login });
      const app = await startApp(run, "signIn");
      await expectNothingSecret(run, PASSWORD);
      await idp(run).fault({ pathPattern: "/auth/v1/login", bodyIncludes: login, status: 500 });
      await signInForm(page, login);
      expect(await openModalTitle(page)).toBe("エラーが発生しました");
      await page.click(await visibleOf(page, { button: "閉じる" }));
      await until(async () => (await page.visible("dialog[open]")) === 0, "the modal closed");
      await page.fill("#field-password", PASSWORD);
      await page.click('form[action="/signIn"] button[type="submit"]');
      await expectAppLogin(run, app, LOGINS.password);
    },
  },

  "TOTP setup with script: a spinner holds the place of a late secret until it comes": {
    needs: ["streaming"],
    scriptOnly: true,
    async run(run) {
      const { page } = run;
      await signedIn(run, "spinner", "mfaSetUp");
      // The secret is held until the test has seen the spinner: a delay would race a busy machine's page.
      await idp(run).fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", held: true });
      await page.click({ link: "認証アプリで設定する" });
      await until(async () => (await page.visible("dialog.spinner")) === 1, "the spinner while the secret is late");
      expect(await countOf(page, ".qr svg")).toBe(0);
      expect(await idp(run).release()).toBe(1);
      await until(async () => (await page.visible(".qr svg")) === 1, "the QR code");
      await until(async () => (await pathOf(page)) === "/mfa/setup/TOTP", "the setup page's address");
      expect(await countOf(page, "dialog.spinner")).toBe(0);
    },
  },

  "the secret checks see secrets: a sign-in's requests carry challenges and the app's code": {
    needs: ["requests"],
    async run(run) {
      const login = email(run, "watched");
      await idp(run).seed({ email: login });
      const app = await startApp(run, "signIn");
      await signInForm(run.page, login, PASSWORD, { toApp: true });
      await expectAppLogin(run, app, LOGINS.password);
      const seen = run.networkSecrets();
      expect(seen.length).toBeGreaterThan(0);
      // Its control: a page of the site that held one of them fails the check.
      await run.page.go(`${run.site.url}/signIn?client_id=${GUNGNIR.clientId}`);
      await expectNothingSecret(run, PASSWORD);
      await run.page.exec(`document.body.append(${JSON.stringify(seen.at(-1))}); return true;`);
      await expect(expectNothingSecret(run, PASSWORD)).rejects.toThrow(/reached the page/);
    },
  },

  "the session guard across two tabs": {
    scriptOnly: true,
    twoTabs: true,
    run: sessionGuardJourney,
  },

  "/security lists both devices' sign-ins; signing out every other device ends the other's session, and the other's ends this one's":
    { run: securityJourney },

  "sign-up refuses a password leaked elsewhere, saying why, and takes another": {
    // docs/security.md "Leaked passwords": with script the field's island asks the site's range endpoint when the form
    // is sent and says why before any POST; without, the form's POST answers with the field's message.
    async run(run) {
      const { page } = run;
      const leaked = `Lk-${crypto.randomUUID().slice(0, 12)}9Z`;
      await idp(run).leakPassword(leaked);
      const address = email(run, "leaked");
      await startApp(run, "signUp");
      await page.fill("#field-email", address);
      await submit(page, { button: "次へ" });
      expect(await pathOf(page)).toBe("/signUp/inputPassword");
      const why = fieldMessages["password.leaked"];
      if (page.javaScript) {
        const hydrated = '[data-island="PasswordField"][data-hydrated]';
        await until(() => page.exec<boolean>(`return !!document.querySelector('${hydrated}');`), "the field hydrated");
        await page.exec(`document.documentElement.setAttribute("data-leak-check", ""); return true;`);
        await page.fill("#field-password", leaked);
        await page.click({ button: "登録する" });
        await until(async () => (await page.text("#field-password-message")) === why, "the island's message");
        // The same document: nothing was posted, and the button waits for another password.
        expect(await page.exec<boolean>(`return document.documentElement.hasAttribute("data-leak-check");`)).toBe(true);
        const disabled = () =>
          page.exec<boolean>(`return document.querySelector("form button[type=submit]").disabled;`);
        await until(disabled, "the submit button disabled");
      } else {
        await page.fill("#field-password", leaked);
        await submit(page, { button: "登録する" });
        expect(await pathOf(page)).toBe("/signUp/inputPassword");
        expect(await page.text("#field-password-message")).toBe(why);
        await expectNothingSecret(run, leaked);
      }
      await page.fill("#field-password", PASSWORD);
      await submit(page, { button: "登録する" });
      expect(await pathOf(page)).toBe("/signUp/confirmMail");
      await expectNothingSecret(run, leaked, PASSWORD);
      expect(await idp(run).count(address)).toBe(1);
    },
  },

  // docs/operations.md "On the site": no engine here can sign with a passkey (none has a platform authenticator, and
  // without script there is no WebAuthn), so the screen shows what is approved and what to do; the approval itself is
  // Chromium's, with a virtual authenticator (operations.test.ts).
  "an operation's confirmation shows what is approved, and where no passkey can sign, what to do": {
    run: operationConfirmationJourney,
  },
};

/**
 * The app's server pushes a withdrawal of 100,000 yen for gungnir-aurora to the site's `/oauth2/par` (the narrow
 * proxy lets a server through), with a PKCE challenge of its own; answers the request_uri, the state and the verifier.
 */
async function pushWithdrawal(run: JourneyRun): Promise<{ requestUri: string; state: string; verifier: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const state = `operation-${randomBytes(16).toString("base64url")}`;
  const response = await fromNode(run, () =>
    fetch(`${run.site.url}/oauth2/par`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: withdrawalPush(createHash("sha256").update(verifier).digest("base64url"), state),
    }),
  );
  const body = (await response.json()) as { request_uri: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return { requestUri: body.request_uri, state, verifier };
}

/**
 * docs/operations.md "On the site": the app opens the site's entry with its client_id and the pushed request_uri. The
 * screen shows the withdrawal as pushed (the heading, the amount and the bank in its definition list) with no
 * password field; no passkey button, since no passkey can sign in this browser (the island asked, with script), and
 * the words that say what to do without one (and, without script, that approving needs it). The cancel goes back to
 * the app's redirect URI with access_denied and the app's state.
 */
async function operationConfirmationJourney(run: JourneyRun): Promise<void> {
  const { page } = run;
  const pushed = await pushWithdrawal(run);
  const query = new URLSearchParams({ client_id: GUNGNIR.clientId, request_uri: pushed.requestUri });
  const entry = `${run.site.url}/${GUNGNIR.serviceId}/auth?${query}`;
  await page.go(entry);
  expect(await page.url()).toBe(entry);
  expect(await headingOf(page)).toBe("出金のご確認");
  const rows = await page.exec<string[][]>(`return [...document.querySelectorAll("dl.operation-details > div")]
    .map((row) => [...row.children].map((cell) => ${textAsRead("cell")}));`);
  expect(rows).toEqual([
    ["出金額", "100,000円"],
    ["出金先", "みずほ銀行 渋谷支店 普通 ****1234"],
  ]);
  expect(await countOf(page, "input[type=password]")).toBe(0);
  if (page.javaScript) {
    const island = '[data-island="PasskeySignIn"]';
    await until(() => page.exec<boolean>(`return !!document.querySelector('${island}[data-hydrated]');`), "the island");
    const platform = "return window.PublicKeyCredential?.isUserVerifyingPlatformAuthenticatorAvailable?.() ?? false;";
    expect(await page.exec<boolean>(platform), "this browser has a platform authenticator").toBe(false);
  }
  expect(await countOf(page, "button", "パスキーで承認する")).toBe(0);
  const shown = await page.text();
  expect(shown).toContain("このお手続きには、パスキーでのログインが必要です。");
  expect(shown).toContain("パスキーをお持ちでない方は、このお手続きに進めません。");
  // The <noscript> line is in the page, and shows where the browser runs no script. WebKit's switch here (webkit.ts,
  // `--enable-javascript-markup=false`) stops the markup's scripts only: its <noscript> stays unrendered.
  const needsScript = "パスキーでの承認には、JavaScriptを有効にしたブラウザが必要です。";
  expect(await page.exec<string>(`return ${textAsRead('document.querySelector("noscript")')};`)).toContain(needsScript);
  const noScript = !page.javaScript && !/WebKit|WPE/.test(page.engine);
  expect(shown.includes(needsScript), "the <noscript> line shown").toBe(noScript);
  await expectNothingSecret(run, pushed.requestUri, pushed.verifier);
  const back = page.watchFor(OPERATION_REDIRECT_URI);
  await page.click({ button: "キャンセル" });
  const cancelled = await back();
  expect(cancelled.searchParams.get("error")).toBe("access_denied");
  expect(cancelled.searchParams.get("state")).toBe(pushed.state);
  expect(cancelled.searchParams.has("code")).toBe(false);
}

/** After a change of password: the modal, nothing secret, and the next sign-in with the new one. */
async function changedPasswordSignsInAfterModal(run: JourneyRun, login: string): Promise<void> {
  expect(await openModalTitle(run.page)).toBe("パスワードを変更しました");
  expect(await countOf(run.page, "dialog[open] button", "閉じる")).toBe(0);
  await expectNothingSecret(run, PASSWORD, NEW_PASSWORD);
  const again = await startApp(run, "signIn");
  await signInForm(run.page, login, NEW_PASSWORD, { toApp: true });
  await expectAppLogin(run, again, LOGINS.password);
}

/**
 * product §4/§8 session guard (script only: without it there is no guard, and both tabs stay usable): the consent tab
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

/**
 * docs/devices.md: a second browser of the user, played from Node with a device credential of its own, which the seeded
 * user knows: an engine's tabs share one browser's cookies, so the other device cannot be a tab.
 */
class OtherDevice {
  private static readonly KEY = Buffer.from("other-device-credential-key-0001").toString("base64url");
  /** What the site names it by to the identity API: base64url(SHA-256(key)). */
  static readonly DIGEST = createHash("sha256").update(OtherDevice.KEY).digest("base64url");
  private readonly jar = new CookieJar();

  private constructor(private readonly run: JourneyRun) {}

  /** The device, holding its credential's cookie as the site (with the previews' dev keys) sealed it. */
  static async of(run: JourneyRun): Promise<OtherDevice> {
    const device = new OtherDevice(run);
    const credential = { key: OtherDevice.KEY, issuedAt: Date.now() };
    const cookie = await sealedCookie(devSessionKeys(), "deviceCredential", credential, 400 * 24 * 60 * 60);
    device.jar.remember(new Response(null, { headers: { "Set-Cookie": `${cookie}; Path=/` } }));
    return device;
  }

  /** A GET, or a form's POST, of this device, its redirects not followed. */
  async request(path: string, form?: Record<string, string>): Promise<Response> {
    const url = new URL(path, this.run.site.url);
    const headers: Record<string, string> = { Cookie: this.jar.header(url.pathname) };
    if (form) headers.Origin = url.origin;
    const init = form ? { method: "POST", headers, body: new URLSearchParams(form) } : { headers };
    const response = await fromNode(this.run, () => fetch(url, { ...init, redirect: "manual" }));
    this.jar.remember(response);
    return response;
  }

  /**
   * The app's `security` view and the password, then the site's redirects: answers where they ended. A device the
   * account forgot (signed out from another one) confirms itself with the mailed code on the way.
   */
  async signIn(login: string): Promise<Response> {
    await (await this.request((await appStart(GUNGNIR, "security")).path)).arrayBuffer();
    const signedIn = await this.follow(await this.request("/signIn", { username: login, password: PASSWORD }));
    if (signedIn.path !== "/signIn/device") return signedIn.response;
    await signedIn.response.arrayBuffer();
    const code = await idp(this.run).latestCode(login);
    return (await this.follow(await this.request("/signIn/device", { code }))).response;
  }

  /** The site's redirects from `response` on: the last answer and its path. */
  private async follow(response: Response): Promise<{ response: Response; path: string }> {
    let path = "";
    for (let hop = 0; hop < 10 && response.status >= 300 && response.status < 400; hop++) {
      const next = new URL(response.headers.get("Location") ?? "", this.run.site.url);
      await response.arrayBuffer();
      path = next.pathname;
      response = await this.request(`${next.pathname}${next.search}`);
    }
    return { response, path };
  }
}

/**
 * docs/devices.md "On the site: /security": the tab and another device of the same user, both signed in. The tab
 * signs every other device out, and the other's next /security asks for a sign-in; signed in again, the other signs
 * the tab's device out, and the tab's next /security is the sign-in form.
 */
async function securityJourney(run: JourneyRun): Promise<void> {
  const { page } = run;
  const login = email(run, "security");
  await idp(run).seed({ email: login, knownDevices: [TEST_DEVICE_DIGEST, OtherDevice.DIGEST] });
  const other = await OtherDevice.of(run);
  expect((await other.signIn(login)).status).toBe(200);
  await startApp(run, "security");
  await signInForm(page, login);
  expect(await pathOf(page)).toBe("/security");
  expect(await headingOf(page)).toBe("ログイン履歴と端末");
  // Two devices and two sign-ins; this tab's device and its sign-in are marked, the other device has its button.
  expect(await countOf(page, "li.row")).toBe(4);
  expect(await countOf(page, ".tag", "この端末")).toBe(2);
  expect(await countOf(page, 'form[action="/security/signout"]')).toBe(1);
  await expectNothingSecret(run, PASSWORD);
  await submit(page, { button: "他のすべての端末からログアウト" });
  expect(await pathOf(page)).toBe("/security");
  expect(await openModalTitle(page)).toBe("他のすべての端末をログアウトしました");
  expect(await countOf(page, 'form[action="/security/signout"]')).toBe(0);
  const stepUp = await other.request("/security");
  expect(stepUp.status).toBe(302);
  expect(new URL(stepUp.headers.get("Location") ?? "", run.site.url).searchParams.get("prompt")).toBe("login");

  const again = await (await other.signIn(login)).text();
  const id = /action="\/security\/signout"[^>]*><input type="hidden" name="id" value="([^"]+)"/.exec(again)?.[1];
  const signedOut = await other.request("/security/signout", { id: id ?? "" });
  expect(signedOut.headers.get("Location")).toBe("/security");
  await page.go(`${run.site.url}/security`);
  expect(await pathOf(page)).toBe("/signIn");
  expect(await page.visible('form[action="/signIn"]')).toBe(1);
}

/**
 * The engines, what their tabs can do beyond EnginePage's core, and what they cannot: the journeys that need a
 * capability run only where it is listed, and every journey must run in at least one engine
 * (`enginesRunning`, checked in chromium.test.ts).
 */
export const ENGINES = {
  // Playwright's click waits for a navigation it starts to commit, not to load: a streamed page is seen as it comes.
  Chromium: { capabilities: ["requests", "responses", "console", "streaming"] },
  "Firefox ESR": { capabilities: ["requests", "responses", "console"] },
  WebKitGTK: { capabilities: [] },
  "WPE 2.38": {
    capabilities: [],
    oneTab: "cog, WPE's browser, shows one web view: a second window of the driver is not a second tab",
  },
} as const satisfies Record<string, { capabilities: readonly Capability[]; oneTab?: string }>;
export type EngineName = keyof typeof ENGINES;

/** Whether `engine` registers `journey` for the JavaScript setting. */
function runsIn(engine: EngineName, journey: Journey, javaScript: boolean): boolean {
  const { capabilities } = ENGINES[engine];
  if (journey.serverRule) return engine === "Chromium" && javaScript;
  return (
    (javaScript || !journey.scriptOnly) &&
    !(journey.twoTabs && "oneTab" in ENGINES[engine]) &&
    (journey.needs ?? []).every((capability) => (capabilities as readonly Capability[]).includes(capability))
  );
}

/** The engines that run each journey (with script on; script-only journeys are never run with it off). */
export function enginesRunning(): Record<string, EngineName[]> {
  const engines = Object.keys(ENGINES) as EngineName[];
  return Object.fromEntries(
    Object.entries(JOURNEYS).map(([name, journey]) => [
      name,
      engines.filter((engine) => runsIn(engine, journey, true)),
    ]),
  );
}

/** How an engine is run: its site and, where its driver has no console, its error log. */
export interface EngineSetup {
  /** The site its journeys use (asked when a test runs: vitest provides it then). */
  site: () => Site;
  /**
   * Where its driver has no console: the log of a site this engine's file uses alone, which the pages' error
   * reports reach (islands/client.tsx → /report/island).
   */
  errorLog?: () => string;
}

/**
 * The page errors of a journey with script on: where the driver sees them, the tab's own; elsewhere the reports in
 * the engine's own log. Answers a function giving what was seen since it was called.
 */
function pageErrorWatch(page: EnginePage, engine: EngineName, setup: EngineSetup): () => string[] {
  if ((ENGINES[engine].capabilities as readonly Capability[]).includes("console")) return needed(page, "pageErrors");
  const log = setup.errorLog?.();
  if (!log) throw new Error(`${page.engine}: no console and no log of its own, so page errors cannot be seen`);
  const from = statSync(log).size;
  return () => reportedErrorsSince(log, from);
}

/**
 * The second-factor step in a browser that cannot make a passkey (none of the engines here has a platform
 * authenticator): the page offers one (its island is there), yet the choice is the app and SMS alone, as without
 * script (docs/passkeys.md, "Passkey first"). With script the island has hydrated and the browser has answered.
 */
async function expectChoicesWithoutPasskey(page: EnginePage): Promise<void> {
  const offer = '[data-island="PasskeyOffer"]';
  expect(await countOf(page, offer), "the step offers a passkey where the browser can make one").toBe(1);
  if (page.javaScript) {
    await until(() => page.exec<boolean>(`return !!document.querySelector('${offer}[data-hydrated]');`), "the offer");
    const platform = "return window.PublicKeyCredential?.isUserVerifyingPlatformAuthenticatorAvailable?.() ?? false;";
    expect(await page.exec<boolean>(platform), "this browser has a platform authenticator").toBe(false);
  }
  expect(await page.visible('a[href="/mfa/setup/TOTP"]')).toBe(1);
  expect(await page.visible('a[href="/mfa/setup/SMS"]')).toBe(1);
  expect(await countOf(page, 'form[action="/mfa/setup/passkey/start"]')).toBe(0);
}

/**
 * With script off, none ran: on a page of the site with islands, none hydrated, and the browser holds no
 * script-marker cookie (`__Host-js`, which every island page sets when its script runs).
 */
async function expectNoScriptRan(page: EnginePage, site: Site): Promise<void> {
  await page.go(`${site.url}/signIn?client_id=${GUNGNIR.clientId}`);
  expect(await countOf(page, "[data-island]"), "the page has islands to hydrate").toBeGreaterThan(0);
  expect(await countOf(page, "[data-hydrated]"), "an island hydrated with script off").toBe(0);
  expect(
    (await page.cookies()).map((cookie) => cookie.name),
    "the script marker was set",
  ).not.toContain("__Host-js");
}

/** A page error thrown once the page's islands hydrated: what the error watch must see. */
async function throwInPage(page: EnginePage, site: Site): Promise<void> {
  await page.go(`${site.url}/signIn?client_id=${GUNGNIR.clientId}`);
  await until(() => page.exec<boolean>(`return !!document.querySelector("[data-hydrated]");`), "an island hydrated");
  await page.exec(`setTimeout(() => { throw new Error("a control error"); }); return true;`);
}

/**
 * Every journey in one engine, JavaScript on and off, each in a fresh window (its own cookie jar). With script on a
 * journey must end with no uncaught page error; with it off, having run no script at all. A journey that needs a
 * capability the engine lacks, or a second tab where there is none, is not registered here: the docs say where it
 * runs (docs/testing.md, "Journeys by layer").
 */
export function journeysIn(
  engine: EngineName,
  openPage: (javaScript: boolean) => Promise<EnginePage>,
  setup: EngineSetup,
): void {
  const capabilities: readonly Capability[] = ENGINES[engine].capabilities;
  const watchesNetwork = capabilities.includes("requests");
  for (const javaScript of [true, false]) {
    const mode = javaScript ? "js" : "nojs";
    const registered = Object.entries(JOURNEYS).filter(([, journey]) => runsIn(engine, journey, javaScript));
    const checks = [
      javaScript ? "no page error" : "no script ran",
      watchesNetwork ? "no secret of the network in a page" : "no typed secret in a page",
    ];
    describe(`${engine} with JavaScript ${javaScript ? "on" : "off"} (${checks.join("; ")})`, () => {
      // A journey that needs a capability says so in its name: where it is missing, the journey is not registered.
      const named = registered.map(([name, journey]): [string, Journey] => [
        journey.needs ? `${name} [needs ${journey.needs.join(", ")}]` : name,
        journey,
      ]);
      it.each(named)("%s", async (name, journey) => {
        const page = await openPage(javaScript);
        const unique = `${engine.replace(/\W/g, "").toLowerCase()}.${mode}.${crypto.randomUUID().slice(0, 8)}`;
        try {
          for (const capability of capabilities)
            expect(capabilitiesOf(page), `${engine} was said to have ${capability}`).toContain(capability);
          const networkSecrets = watchesNetwork ? () => [...secretsIn(needed(page, "requests")())] : () => [];
          const site = setup.site();
          // The test device, which seeded users know (docs/devices.md), before the first visit: a new device's
          // confirmation is then met only by the journeys about it.
          if (!journey.newDevice)
            await page.setCookies(site.url, [{ name: DEVICE_CREDENTIAL_COOKIE, value: await testDeviceCredential() }]);
          const errors = javaScript ? pageErrorWatch(page, engine, setup) : undefined;
          await journey.run({ page, site, unique, networkSecrets });
          if (errors) expect(errors(), `page errors during "${name}"`).toEqual([]);
          else await expectNoScriptRan(page, site);
        } finally {
          await page.close();
        }
      });
      if (javaScript)
        it("the page-error check sees an error a page throws (its control)", async () => {
          const page = await openPage(javaScript);
          try {
            const errors = pageErrorWatch(page, engine, setup);
            await throwInPage(page, setup.site());
            await until(async () => errors().length > 0, "the thrown error seen");
            expect(errors().join("\n")).toMatch(
              javaScript && capabilities.includes("console") ? /a control error/ : /"page"/,
            );
          } finally {
            // Firefox's tab fails its close on a page error it saw: that is this test's point, not a failure.
            await page.close().catch(() => undefined);
          }
        });
    });
  }
}
