import { env } from "cloudflare:test";
import jsQR from "jsqr";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { fieldMessages, screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import type { View } from "../../worker/session/authRequest";
import { type AppBrand, appStart } from "../support/appStart";
import { escapeHtml, expectModalIn } from "../support/expectations";
import { ASTRA, GUNGNIR, HAYATE, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import {
  emulator,
  get,
  ORIGIN,
  optionsForFault,
  PAST_SHORT_TIMEOUT_MS,
  postForm,
  type SiteFetchOptions,
  sealedCookie,
  siteFetch,
} from "./helpers";
import { Journey } from "./journey";
import { rateLimitClock } from "./rateLimits";

// Two-factor setup (product §2 MFASetup, MFASetupTOTP, MFASetupSMS; §4 MFA setup) through
// the site, against the emulator, as a browser without script posts it (and, where it differs, with script).

const PHONE = "09012345678";
const SCRIPT_MARKER = "__Host-js=1";

beforeEach(async () => {
  await emulator.reset();
});

let users = 0;

/** A new user signs in through the site for `view`; the callback lands on /mfa/setup with the tokens cookie. */
async function signedIn(brand: AppBrand = GUNGNIR, view: View = "mfaSetUp") {
  users += 1;
  const email = `setup.${users}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  await emulator.seed({ email });
  const journey = new Journey();
  const start = await appStart(brand, view);
  // The app's start answers the sign-in screen itself (docs/security.md, "Redirects").
  const screen = await journey.request(start.path);
  expect(screen.status).toBe(200);
  await screen.body?.cancel();
  const login = await journey.postForm("/signIn", { client_id: brand.clientId, username: email, password: PASSWORD });
  const toCallback = await journey.request(login.headers.get("Location")!);
  const callback = await journey.request(toCallback.headers.get("Location")!);
  expect(callback.headers.get("Location")).toBe("/mfa/setup");
  return { journey, email, appRedirect: start.appRedirect };
}

/** The access token the site keeps for the user (to play the user's other device against the emulator). */
async function accessToken(journey: Journey): Promise<string> {
  return (await journey.sealedKept("tokens")).accessToken;
}

/** A call straight to the identity API, beside the site (the site's proxy passes none of these). */
function upstream(path: string, token: string, body: unknown): Promise<Response> {
  return env.IDENTITY!.fetch(`https://identity.test${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function userMfa(email: string): Promise<unknown> {
  const response = await siteFetch(`${ORIGIN}/__emulator/users/${encodeURIComponent(email)}`);
  return ((await response.json()) as { mfa: unknown }).mfa;
}

async function pendingFaults(): Promise<number> {
  const response = await siteFetch(`${ORIGIN}/__emulator/faults`);
  return ((await response.json()) as unknown[]).length;
}

/**
 * Paints the page's QR SVG (a stroked path: `M<x> <y>.5` starts a row, `m<gap> 0` moves along it, `h<run>` draws
 * a run of dark modules) as pixels and reads it with jsQR.
 */
function readQr(html: string): string | undefined {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(html)?.[1]);
  const path = /<path d="([^"]+)" stroke="#000"/.exec(html)?.[1] ?? "";
  const scale = 4;
  const width = size * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([Mmh])(\d+(?:\.5)?)(?: (\d+(?:\.5)?))?/g)) {
    if (command === "M") [x, y] = [Number(a), Number(b) - 0.5];
    else if (command === "m") x += Number(a);
    else {
      for (let px = x * scale; px < (x + Number(a)) * scale; px += 1) {
        for (let py = y * scale; py < (y + 1) * scale; py += 1)
          pixels.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
      }
      x += Number(a);
    }
  }
  return jsQR(pixels, width, width)?.data;
}

const secretOf = (html: string) => /name="secret" value="([A-Z2-7]+)"/.exec(html)?.[1];
const codeFor = (secret: string) => new TOTP({ secret }).generate();
const wrongFor = (secret: string) => (codeFor(secret) === "000000" ? "111111" : "000000");

/** The 'two-factor set' modal, and where its link goes: the app's authorization as extSignIn (registered values). */
function expectDone(html: string, clientId: string, appRedirect: string): URL {
  expect(html).toContain(modals.mfaSetupDone.title);
  expect(html).toContain(modals.mfaSetupDone.body);
  const href = /<dialog open=""[\s\S]*?<a class="button" href="([^"]+)"/.exec(html)?.[1];
  expect(href).toBeDefined();
  const next = new URL(href!.replaceAll("&amp;", "&"), ORIGIN);
  expect(`${next.origin}${next.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
  expect(next.searchParams.get("view")).toBe("extSignIn");
  expect(next.searchParams.get("client_id")).toBe(clientId);
  expect(next.searchParams.get("redirect_uri")).toBe(appRedirect);
  return next;
}

describe("GET /mfa/setup (product §2 MFASetup)", () => {
  it.each([
    ["gungnir-aurora", GUNGNIR, true],
    ["izarra-astra (no SMS in its brand data)", ASTRA, false],
  ])("offers the brand's factors and 'set up later' on %s", async (_, brand, sms) => {
    const { journey } = await signedIn(brand);
    const html = await (await journey.request("/mfa/setup")).text();
    expect(html).toContain('href="/mfa/setup/TOTP"');
    expect(html.includes('href="/mfa/setup/SMS"')).toBe(sms);
    expect(html).toContain('action="/mfa/setup/skip"');
    expect(html).toContain(screens.mfaSetup.later);
  });

  it.each([
    ["mfaSetUp", "the app's registered redirect URI"],
    ["signUp", "the app's authorization as extSignIn"],
  ] as const)("lets a brand that once lacked NONE skip (view %s: %s), whatever the form names", async (view, _) => {
    const { journey, appRedirect } = await signedIn(HAYATE, view);
    const skipped = await journey.postForm("/mfa/setup/skip", { client_id: GUNGNIR.clientId });
    expect(skipped.status).toBe(303);
    const location = new URL(skipped.headers.get("Location")!, ORIGIN);
    if (view === "mfaSetUp") {
      expect(location.toString()).toBe(appRedirect);
    } else {
      expect(`${location.origin}${location.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
      expect(location.searchParams.get("view")).toBe("extSignIn");
      expect(location.searchParams.get("client_id")).toBe(HAYATE.clientId);
      expect(location.searchParams.get("redirect_uri")).toBe(appRedirect);
    }
  });
});

describe("GET /mfa/setup/TOTP (product §2 MFASetupTOTP)", () => {
  it("shows the issued secret complete without script: QR code as inline SVG, the key in groups of 4, no spinner", async () => {
    const { journey } = await signedIn();
    const response = await journey.request("/mfa/setup/TOTP");
    expect(response.status).toBe(200);
    const html = await response.text();
    const secret = secretOf(html)!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(html).toMatch(
      new RegExp(`<svg role="img" aria-label="${screens.mfaSetupTotp.qrAlt}" viewBox="0 0 \\d+ \\d+"[^>]*>`),
    );
    expect(html).toMatch(/<path d="M\d+ \d+\.5h\d+(?:m\d+ 0h\d+)*M/);
    const groups = [...html.matchAll(/<span class="secret-group">([A-Z2-7]+)<\/span>/g)].map(([, group]) => group);
    expect(groups).toHaveLength(8);
    expect(groups.join("")).toBe(secret);
    expect(groups.every((group) => group?.length === 4)).toBe(true);
    expect(html).not.toContain('class="spinner"');
    expect(html).not.toMatch(/<div hidden id="S:|<template id="B:|\$RC\(/);
    expect(html).toContain('action="/mfa/setup/TOTP"');
  });

  it("draws a QR code that reads as otpauth://totp/{brand}:{email}?secret&issuer", async () => {
    const { journey, email } = await signedIn();
    const html = await (await journey.request("/mfa/setup/TOTP")).text();
    const brand = encodeURIComponent("オーロラ証券");
    const expected = `otpauth://totp/${brand}:${encodeURIComponent(email)}?secret=${secretOf(html)}&issuer=${brand}`;
    expect(readQr(html)).toBe(expected);
  });

  it("streams the spinner first to a browser that runs script, then the secret swapped in by a nonce'd script", async () => {
    const { journey } = await signedIn();
    // The secret arrives after the page's shell: the spinner stands in for it until then.
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", delayMs: 300 });
    const response = await get("/mfa/setup/TOTP", [journey.cookieHeader("/"), SCRIPT_MARKER]);
    expect(response.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(response.headers.get("Content-Security-Policy") ?? "")?.[1];
    const html = await response.text();
    const spinner = html.indexOf('class="spinner"');
    const late = html.search(/<div hidden id="S:\d+">/);
    expect(spinner).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(spinner);
    expect(html.indexOf('name="secret"')).toBeGreaterThan(late);
    expect(html.slice(late)).toMatch(
      // The nonce is base64: '+' and '/' must not be read as regex syntax.
      new RegExp(`<script nonce="${escapeRegExp(nonce ?? "")}">(?:(?!</script>)[\\s\\S])*\\$RC\\("B:0","S:0"\\)`),
    );
  });

  it("answers a second request while the first is pending with the same secret, not a second one", async () => {
    const { journey } = await signedIn();
    const [one, two] = await Promise.all([journey.request("/mfa/setup/TOTP"), journey.request("/mfa/setup/TOTP")]);
    const [first, second] = [secretOf(await one.text()), secretOf(await two.text())];
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(secretOf(await (await journey.request("/mfa/setup/TOTP")).text())).toBe(first);
  });

  it("makes no upstream call without a token: the parameter problem (400)", async () => {
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", status: 500 });
    const response = await get("/mfa/setup/TOTP");
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("パラメータに不備がありました");
    expect(await pendingFaults()).toBe(1);
  });

  it.each([
    ["is in maintenance (503)", { status: 503 }, 503, "maintenance"],
    ["fails (500)", { status: 500 }, 502, "unexpectedError"],
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS, status: 201 }, 504, "unexpectedError"],
    ["answers a malformed body", { status: 201, malformed: true }, 502, "unexpectedError"],
  ] as const)("shows its product §8 modal when the upstream %s", async (_, fault, status, modal) => {
    const { journey } = await signedIn();
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", ...fault });
    // The delayed call's request gives up after the short timeout; the others keep the project's.
    const response = await journey.request("/mfa/setup/TOTP", {}, optionsForFault(fault));
    expect(response.status).toBe(status);
    const html = await response.text();
    expectModalIn(html, modal);
    expect(secretOf(html)).toBeUndefined();
  });

  it("shows the modal in the secret's place when the call fails after the page began to stream", async () => {
    const { journey } = await signedIn();
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", status: 503, delayMs: 100 });
    const response = await get("/mfa/setup/TOTP", [journey.cookieHeader("/"), SCRIPT_MARKER]);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(modals.maintenance.title);
    expect(html).toMatch(/<dialog open=""[^>]*id="secret-modal"/);
    expect(secretOf(html)).toBeUndefined();
  });
});

describe("POST /mfa/setup/TOTP", () => {
  async function totpPage() {
    const signed = await signedIn();
    const html = await (await signed.journey.request("/mfa/setup/TOTP")).text();
    const secret = secretOf(html)!;
    const account = /name="account" value="([^"]*)"/.exec(html)?.[1] ?? "";
    expect(account).toBe(signed.email);
    const confirm = (code: string, options?: SiteFetchOptions) =>
      signed.journey.postForm("/mfa/setup/TOTP", { secret, account, mfaOtpCode: code }, options);
    return { ...signed, secret, confirm };
  }

  it("sets the factor with the authenticator's code: the 'two-factor set' modal leads to the app's authorization", async () => {
    const { journey, email, secret, confirm, appRedirect } = await totpPage();
    const response = await confirm(codeFor(secret));
    expect(response.status).toBe(200);
    const next = expectDone(await response.text(), GUNGNIR.clientId, appRedirect);
    expect(await userMfa(email)).toEqual({ totp: secret });
    // The OAuth2 server hands the app its code at its registered redirect URI.
    const { foreign } = await journey.follow(await journey.request(next.toString()));
    expect(`${foreign!.origin}${foreign!.pathname}`).toBe(appRedirect);
    expect(foreign!.searchParams.get("code")).toBeTruthy();

    // The next sign-in asks for the new factor.
    const again = new Journey();
    const toOauth = await again.request((await appStart(GUNGNIR, "signIn")).path);
    await again.request((await again.request(toOauth.headers.get("Location")!)).headers.get("Location")!);
    const login = await again.postForm("/signIn", { client_id: GUNGNIR.clientId, username: email, password: PASSWORD });
    expect(login.headers.get("Location")).toBe("/signIn/mfa");
  });

  it("says a wrong code is wrong (401) and shows the same secret again without a new request", async () => {
    const { secret, confirm } = await totpPage();
    // A new request would fail: the page must not make one.
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", status: 500 });
    const response = await confirm(wrongFor(secret));
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(fieldMessages["mfaCode.wrong"]);
    expect(secretOf(html)).toBe(secret);
    expect(html).toContain(`aria-label="${screens.mfaSetupTotp.qrAlt}"`);
    expect(await pendingFaults()).toBe(1);
  });

  it("starts again after the upstream's 5 wrong codes: the right code gets 'expired', the restart a new secret", async () => {
    const { journey, secret, confirm } = await totpPage();
    const token = await accessToken(journey);
    // Four wrong codes from elsewhere, the fifth through the site: the upstream ends the pending setup.
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect(
        (await upstream("/auth/v1/user/mfa/confirm", token, { type: "totp", code: wrongFor(secret) })).status,
      ).toBe(400);
    }
    expect((await confirm(wrongFor(secret))).status).toBe(401);
    const ended = await confirm(codeFor(secret));
    expect(ended.status).toBe(409);
    const html = await ended.text();
    expectModalIn(html, "mfaSetupExpired");
    expect(html).toContain('href="/mfa/setup/TOTP"');
    const fresh = secretOf(await (await journey.request("/mfa/setup/TOTP")).text());
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(secret);
  });

  it("shows success again for a second submission of the same code (a double click without script)", async () => {
    const { secret, confirm, appRedirect } = await totpPage();
    const code = codeFor(secret);
    expect((await confirm(code)).status).toBe(200);
    const second = await confirm(code);
    expect(second.status).toBe(200);
    expectDone(await second.text(), GUNGNIR.clientId, appRedirect);
  });

  it("re-renders an invalid code with its message (422); a form without its secret is the parameter problem", async () => {
    const { journey, secret, email } = await totpPage();
    const short = await journey.postForm("/mfa/setup/TOTP", { secret, account: email, mfaOtpCode: "12345" });
    expect(short.status).toBe(422);
    expect(await short.text()).toContain(fieldMessages["code.invalid"]);
    const noSecret = await journey.postForm("/mfa/setup/TOTP", { account: email, mfaOtpCode: "123456" });
    expect(noSecret.status).toBe(400);
  });

  it("counts codes per signed-in user: a sixth within the minute gets 429 and never reaches the upstream", async () => {
    // The rate limits count on the test's clock (docs/testing.md): the sixth, exactly.
    const { email, secret, confirm } = await totpPage();
    for (let attempt = 1; attempt <= 5; attempt += 1) expect((await confirm(wrongFor(secret))).status).toBe(401);
    const sixth = await confirm(codeFor(secret));
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("Retry-After")).toBe("60");
    expectModalIn(await sixth.text(), "tooManyAttempts");
    expect(await userMfa(email)).toBe("none");
    // Past the period the code reaches the upstream, which ended the pending setup at its fifth wrong code.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await confirm(codeFor(secret));
    expect(later.status).toBe(409);
    expectModalIn(await later.text(), "mfaSetupExpired");
    expect(await userMfa(email)).toBe("none");
  });

  it("makes no upstream call without a token", async () => {
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/confirm", status: 500 });
    const response = await postForm("/mfa/setup/TOTP", {
      secret: TOTP_SECRET,
      mfaOtpCode: "123456",
    });
    expect(response.status).toBe(400);
    expect(await pendingFaults()).toBe(1);
  });

  it.each([
    ["is in maintenance", { status: 503 }, 503, "maintenance"],
    ["fails", { status: 500 }, 502, "unexpectedError"],
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS, status: 201 }, 504, "unexpectedError"],
  ] as const)("shows its product §8 modal when the confirmation %s", async (_, fault, status, modal) => {
    const { secret, confirm } = await totpPage();
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/confirm", ...fault });
    // The delayed call's request gives up after the short timeout; the others keep the project's.
    const response = await confirm(codeFor(secret), optionsForFault(fault));
    expect(response.status).toBe(status);
    expectModalIn(await response.text(), modal);
  });
});

describe("SMS setup (product §2 MFASetupSMS)", () => {
  it("without script: number → warning page → send to +81 and the number as typed → code → set", async () => {
    const { journey, email, appRedirect } = await signedIn();
    const page = await (await journey.request("/mfa/setup/SMS")).text();
    expect(page).toContain('action="/mfa/setup/SMS/warning"');
    expect(page).not.toContain('action="/mfa/setup/SMS"');

    const warned = await journey.postForm("/mfa/setup/SMS/warning", { phoneNumber: PHONE });
    expect(warned.status).toBe(303);
    expect(warned.headers.get("Location")).toBe("/mfa/setup/SMS/warning");
    const warning = await (await journey.request("/mfa/setup/SMS/warning")).text();
    expect(warning).toContain(modals.smsSendWarning.title);
    expect(warning).toContain(modals.smsSendWarning.body);
    expect(warning).toContain(`name="phoneNumber" value="${PHONE}"`);
    expect(warning).toContain('action="/mfa/setup/SMS/sendCode"');
    expect(await emulator.count(`+81${PHONE}`)).toBe(0);

    const sent = await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("Location")).toBe("/mfa/setup/SMS");
    const code = await emulator.latestCode(`+81${PHONE}`);
    const codeStep = await (await journey.request("/mfa/setup/SMS")).text();
    expect(codeStep).toContain(escapeHtml(screens.mfaSetupSms.sentTo(PHONE)));
    expect(codeStep).toContain('action="/mfa/setup/SMS"');

    const wrong = await journey.postForm("/mfa/setup/SMS", { mfaOtpCode: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(fieldMessages["mfaCode.wrong"]);
    const done = await journey.postForm("/mfa/setup/SMS", { mfaOtpCode: code });
    expect(done.status).toBe(200);
    expectDone(await done.text(), GUNGNIR.clientId, appRedirect);
    expect(await userMfa(email)).toEqual({ sms: `+81${PHONE}` });
  });

  it.each([
    ["a landline", "0312345678"],
    ["a number with hyphens", "090-1234-5678"],
    ["a 070 number missing a digit", "0701234567"],
    ["a number not starting 0[5789]0", "01012345678"],
  ])("refuses %s with the phone message (422), keeping it, sending nothing", async (_, phoneNumber) => {
    const { journey } = await signedIn();
    for (const path of ["/mfa/setup/SMS/warning", "/mfa/setup/SMS/sendCode"]) {
      const response = await journey.postForm(path, { phoneNumber });
      expect(response.status).toBe(422);
      const html = await response.text();
      expect(html).toContain(fieldMessages["phone.invalid"]);
      expect(html).toContain(`value="${phoneNumber}"`);
    }
    expect(await emulator.count(`+81${phoneNumber}`)).toBe(0);
  });

  it("refuses a second send while the first is pending politely (409, Retry-After): one SMS, its code step", async () => {
    const { journey } = await signedIn();
    const [one, two] = await Promise.all([
      journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE }),
      journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE }),
    ]);
    expect([one.status, two.status].sort()).toEqual([303, 409]);
    const refused = one.status === 409 ? one : two;
    expect(refused.headers.get("Retry-After")).toBe("60");
    const html = await refused.text();
    expectModalIn(html, "smsSetupPending");
    expect(html).toContain('action="/mfa/setup/SMS"');
    expect(await emulator.count(`+81${PHONE}`)).toBe(1);
  });

  it("counts sends per signed-in user in the mail class: the fourth within the minute gets 429", async () => {
    const { journey } = await signedIn();
    const send = async () => {
      const response = await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE });
      await response.body?.cancel();
      return response.status;
    };
    // The rate limits count on the test's clock (docs/testing.md): the fourth, exactly.
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) statuses.push(await send());
    expect(statuses).toEqual([303, 409, 409, 429]);
    expect(await emulator.count(`+81${PHONE}`)).toBe(1);
    // Past the period the send reaches the upstream again: the first SMS is still pending.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    expect(await send()).toBe(409);
    expect(await emulator.count(`+81${PHONE}`)).toBe(1);
  });

  it("starts again when the code has run out (3 minutes)", async () => {
    const { journey } = await signedIn();
    await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE });
    const code = await emulator.latestCode(`+81${PHONE}`);
    await emulator.clock(3 * 60_000 + 1000);
    const response = await journey.postForm("/mfa/setup/SMS", { mfaOtpCode: code });
    expect(response.status).toBe(409);
    const html = await response.text();
    expectModalIn(html, "mfaSetupExpired");
    expect(html).toContain('href="/mfa/setup/SMS"');
  });

  it("is not offered by a service without SMS in its brand data (403), and sends nothing there", async () => {
    const { journey } = await signedIn(ASTRA);
    expect((await journey.request("/mfa/setup/SMS")).status).toBe(403);
    expect((await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE })).status).toBe(403);
    expect(await emulator.count(`+81${PHONE}`)).toBe(0);
  });

  it("shows the warning page only with a number to warn about, and only to a signed-in user", async () => {
    const { journey } = await signedIn();
    expect((await journey.request("/mfa/setup/SMS/warning")).status).toBe(400);
    const stateOnly = await sealedCookie("mfaSetup", { phoneNumber: PHONE, sent: false });
    expect((await get("/mfa/setup/SMS/warning", [stateOnly])).status).toBe(400);
  });

  it.each([
    ["is in maintenance", { status: 503 }, 503, "maintenance"],
    ["fails", { status: 500 }, 502, "unexpectedError"],
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS, status: 201 }, 504, "unexpectedError"],
    ["caps the account's SMS", { status: 429, body: { type: "too_many_requests" } }, 429, "tooManyAttempts"],
  ] as const)("shows its product §8 modal when the send %s", async (_, fault, status, modal) => {
    const { journey } = await signedIn();
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", ...fault });
    // The delayed call's request gives up after the short timeout; the others keep the project's.
    const options = optionsForFault(fault);
    const response = await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE }, options);
    expect(response.status).toBe(status);
    expectModalIn(await response.text(), modal);
  });

  it("makes no upstream call without a token", async () => {
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/mfa/setup", status: 500 });
    const response = await postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE });
    expect(response.status).toBe(400);
    expect(await pendingFaults()).toBe(1);
    expect(await emulator.count(`+81${PHONE}`)).toBe(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
