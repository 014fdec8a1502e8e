import { beforeEach, describe, expect, it } from "vitest";
import { common, fieldMessages, screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import type { View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import type { Fault, SeedUser } from "../support/emulatorClient";
import { escapeHtml, expectNoSecrets, openModal } from "../support/expectations";
import { formPost } from "../support/forms";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { GUNGNIR, NEW_PASSWORD, PASSWORD } from "../support/vocabulary";
import {
  clientIp,
  emulator,
  get,
  ORIGIN,
  optionsForFault,
  PAST_SHORT_TIMEOUT_MS,
  postForm,
  sealedCookie,
} from "./helpers";
import { Journey, reachLoginScreen } from "./journey";
import { rateLimitClock } from "./rateLimits";

// Changing the password, changing the e-mail (and its mailed links), registering
// an e-mail, each with the bearer token of the tokens cookie, against the emulator, as a browser without
// JavaScript posts the forms.

const SERVICE_TOP = "https://dev.aurora-sec.example/";
const tokensCookie = `__Host-${sealedCookies.tokens.name}`;

beforeEach(async () => {
  await emulator.reset();
});

/**
 * An address no other test uses: sign-ins count per login ID, and mails per address, at the edge (architecture §8),
 * and those counters outlive the emulator's reset.
 */
function unique(name: string): string {
  return `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;
}

const AFTER_CALLBACK: Partial<Record<View, string>> = {
  passwordChange: "/changePassword",
  emailChange: "/changeEmail",
  signIn: "/registerEmail",
};

/** The app opens the site for `view`, the user signs in, and /callback sends the browser to the view's screen. */
async function signedIn(view: View, email: string, seed: Partial<SeedUser> = {}): Promise<Journey> {
  await emulator.seed({ email, ...seed });
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, view);
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", { client_id: GUNGNIR.clientId, username: email, password: PASSWORD });
  expect(login.status).toBe(303);
  const toCallback = await journey.request(login.headers.get("Location")!);
  const callback = await journey.request(toCallback.headers.get("Location")!);
  expect(callback.status).toBe(303);
  expect(callback.headers.get("Location")).toBe(AFTER_CALLBACK[view]);
  return journey;
}

/** Whether the user signs in with this password now (a fresh browser, through the site). */
async function signsIn(email: string, password: string): Promise<boolean> {
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
  await response.body?.cancel();
  const login = await journey.postForm("/signIn", { username: email, password });
  await login.body?.cancel();
  return login.status === 303;
}

/** From now on every account call fails; answers how many reached the upstream (none must, where nothing is called). */
async function watchAccountCalls(): Promise<() => Promise<number>> {
  const times = 1000;
  await emulator.fault({ method: "*", pathPattern: "/auth/v1/user/**", status: 500, times });
  return async () => {
    const faults = (await (await get("/__emulator/faults")).json()) as Array<{ remaining: number }>;
    return times - (faults[0]?.remaining ?? 0);
  };
}

/** How an injected fault answers; the test names the call. */
type FaultAnswer = Omit<Fault, "method" | "pathPattern">;

describe("change password (product §2 ChangePassword)", () => {
  const change = (journey: Journey, currentPassword: string, newPassword = NEW_PASSWORD) =>
    journey.postForm("/changePassword", { currentPassword, newPassword });

  it("is reached by view passwordChange: current and new password, each with the show/hide toggle", async () => {
    const journey = await signedIn("passwordChange", unique("pw.screen"));
    const response = await journey.request("/changePassword");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(screens.changePassword.title);
    expect(html).toContain('action="/changePassword"');
    for (const name of ["currentPassword", "newPassword"]) expect(html).toContain(`name="${name}"`);
    // The toggles themselves (the fields' props carry the same words for the browser).
    expect(html.match(new RegExp(`aria-label="${common.showPassword}"`, "g"))?.length).toBe(2);
  });

  it("changes it with the bearer token: a modal that cannot be closed, saying every other device is signed out, on to the passkeys", async () => {
    const email = unique("pw.change");
    const journey = await signedIn("passwordChange", email);
    const response = await change(journey, PASSWORD);
    expect(response.status).toBe(200);
    const html = await response.text();
    const modal = openModal(html);
    expect(modal).toContain(modals.passwordChangedCheckPasskeys.title);
    expect(modal).toContain("ほかの端末はすべてログアウトしました");
    expect(modal).not.toContain('method="dialog"');
    // A passkey is not a password: it stays, and the customer is taken to the list to check it.
    expect(modal).toContain('href="/passkeys"');
    expect(modal).not.toContain(`href="${SERVICE_TOP}"`);
    expectNoSecrets(html, [PASSWORD, NEW_PASSWORD]);
    expect(await signsIn(email, NEW_PASSWORD)).toBe(true);
    expect(await signsIn(email, PASSWORD)).toBe(false);
  });

  it("says 'enter a correct password' for a wrong current password (401), changes nothing, echoes nothing", async () => {
    const email = unique("pw.wrong");
    const journey = await signedIn("passwordChange", email);
    const response = await change(journey, "Wr0ng-Passw0rd!");
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(fieldMessages["password.incorrect"]);
    expect(html).not.toContain(modals.passwordChanged.title);
    expectNoSecrets(html, ["Wr0ng-Passw0rd!", NEW_PASSWORD]);
    expect(await signsIn(email, PASSWORD)).toBe(true);
  });

  it("re-renders a form that breaks the rules (422) without calling the upstream or echoing a password", async () => {
    const journey = await signedIn("passwordChange", unique("pw.rules"));
    const calls = await watchAccountCalls();
    for (const form of [
      { currentPassword: PASSWORD, newPassword: "weakpassword" },
      { currentPassword: "", newPassword: NEW_PASSWORD },
    ]) {
      const response = await journey.postForm("/changePassword", form);
      expect(response.status).toBe(422);
      const html = await response.text();
      if (form.currentPassword) expect(html).toContain(fieldMessages["password.incorrect"]);
      else expect(html).toContain(fieldMessages["field.required"]);
      expectNoSecrets(html, ["weakpassword", PASSWORD, NEW_PASSWORD]);
    }
    expect(await calls()).toBe(0);
    // The watch itself: a valid form is called upstream (and gets the watch's failure).
    expect((await change(journey, PASSWORD)).status).toBe(502);
    expect(await calls()).toBe(1);
  });

  it("says 'enter a correct password' when the upstream refuses the new one by its rules (422)", async () => {
    const journey = await signedIn("passwordChange", unique("pw.upstream"));
    await emulator.fault({
      method: "PATCH",
      pathPattern: "/auth/v1/user/password",
      status: 400,
      body: { type: "invalid_request", detail: "password.symbol" },
    });
    const response = await change(journey, PASSWORD);
    expect(response.status).toBe(422);
    expect(await response.text()).toContain(fieldMessages["password.incorrect"]);
  });
});

describe("change e-mail (product §2 ChangeEmail, ChangeEmailResult)", () => {
  let oldEmail: string;
  let newEmail: string;
  beforeEach(() => {
    oldEmail = unique("mail.old");
    newEmail = unique("mail.new");
  });

  /** Follows a mailed link in the journey's browser: the site's own answer, then the page it leads to. */
  async function followLink(journey: Journey, link: string) {
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/auth/v1/user/email/confirm`);
    const answer = await journey.request(link);
    const location = answer.headers.get("Location");
    const page = location ? await journey.request(location) : answer;
    return { answer, location, page, html: await page.text() };
  }

  it("requests the change: the info modal, and a link to the previous address only", async () => {
    const journey = await signedIn("emailChange", oldEmail);
    const response = await journey.postForm("/changeEmail", { newEmail });
    expect(response.status).toBe(200);
    const modal = openModal(await response.text());
    expect(modal).toContain(modals.changeEmailSent.title);
    expect(modal).toContain(modals.changeEmailSent.body);
    expect(modal).toContain('method="dialog"');
    // The link mails (the sign-in's notice carries none).
    expect((await emulator.actionable(oldEmail)).length).toBe(1);
    expect((await emulator.actionable(newEmail)).length).toBe(0);
  });

  it("follows both mailed links end to end: old address, then new, then the address is changed", async () => {
    const journey = await signedIn("emailChange", oldEmail);
    expect((await journey.postForm("/changeEmail", { newEmail })).status).toBe(200);
    const resultPath = `/${GUNGNIR.serviceId}/changeEmail?client_id=${GUNGNIR.clientId}&result=`;

    // A mail client opens links in a fresh browser: no cookie of the site is needed.
    const first = await followLink(new Journey(), await emulator.latestLink(oldEmail));
    expect(first.answer.status).toBe(303);
    expect(first.location).toBe(`${resultPath}sent_to_new_email`);
    expect(first.page.status).toBe(200);
    expect(first.html).toContain(screens.changeEmailResult.sentToNewEmailTitle);
    expect(first.html).not.toContain(common.backToServiceTop);
    expect(await signsIn(oldEmail, PASSWORD)).toBe(true);

    const newLink = (await emulator.latest(newEmail)).link!;
    const second = await followLink(journey, newLink);
    expect(second.location).toBe(`${resultPath}completed`);
    expect(second.html).toContain(screens.changeEmailResult.completedTitle);
    expect(second.html).toContain(`href="${SERVICE_TOP}"`);
    expect(await signsIn(newEmail, PASSWORD)).toBe(true);
    expect(await signsIn(oldEmail, PASSWORD)).toBe(false);

    // Both addresses are told of the change (docs/devices.md, "Notices"), in a mail without a link.
    for (const address of [oldEmail, newEmail]) {
      const notices = (await emulator.outbox(address)).filter(({ subject }) =>
        subject.includes("メールアドレスが変更されました"),
      );
      expect(notices, address).toHaveLength(1);
      expect(notices[0]?.link).toBeNull();
    }
    // Each link is single use: the second time, the result page says it failed.
    const again = await followLink(new Journey(), newLink);
    expect(again.location).toBe(`${resultPath}invalid`);
    expect(again.html).toContain(screens.changeEmailResult.failedBody);
  });

  it.each([
    ["sent_to_new_email", screens.changeEmailResult.sentToNewEmailBody, false],
    ["completed", screens.changeEmailResult.completedBody, true],
    ["invalid", screens.changeEmailResult.failedBody, false],
    ["error", screens.changeEmailResult.failedBody, false],
  ])(
    "the result page for %s shows its text, with the back-to-top link only on completed",
    async (result, body, top) => {
      const response = await get(`/${GUNGNIR.serviceId}/changeEmail?client_id=${GUNGNIR.clientId}&result=${result}`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(body);
      expect(html.includes(common.backToServiceTop)).toBe(top);
    },
  );

  it("refuses an address another account holds (409) and keeps what was typed", async () => {
    await emulator.seed({ email: "mail.taken@example.com" });
    const journey = await signedIn("emailChange", oldEmail);
    const response = await journey.postForm("/changeEmail", { newEmail: "mail.taken@example.com" });
    expect(response.status).toBe(409);
    const html = await response.text();
    expect(html).toContain(fieldMessages["email.taken"]);
    expect(html).toContain('value="mail.taken@example.com"');
    expect((await emulator.actionable(oldEmail)).length).toBe(0);
  });

  it("re-renders an address that breaks the rules (422) without calling the upstream", async () => {
    const journey = await signedIn("emailChange", oldEmail);
    const calls = await watchAccountCalls();
    const response = await journey.postForm("/changeEmail", { newEmail: "not an address" });
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain(fieldMessages["email.invalid"]);
    expect(html).toContain('value="not an address"');
    expect(await calls()).toBe(0);
  });

  it("shows a link's failure upstream on the result page with its product §8 modal", async () => {
    for (const [fault, status, title] of [
      [{ status: 503 }, 503, modals.maintenance.title],
      [{ status: 500 }, 502, modals.unexpectedError.title],
      [{ delayMs: PAST_SHORT_TIMEOUT_MS }, 504, modals.unexpectedError.title],
      [{ status: 200, body: {} }, 502, modals.unexpectedError.title],
    ] as const) {
      await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/email/confirm", ...(fault as FaultAnswer) });
      // The delayed call's request gives up after the short timeout; the others keep the project's.
      const response = await get(
        `/auth/v1/user/email/confirm?token=some-token&client_id=${GUNGNIR.clientId}`,
        [],
        {},
        optionsForFault(fault),
      );
      expect(response.status).toBe(status);
      const html = await response.text();
      expect(html).toContain(screens.changeEmailResult.failedBody);
      expect(openModal(html)).toContain(title);
      await emulator.clearFaults();
    }
  });

  it("answers a link without a token with the parameter problem, and one of an unknown client in place", async () => {
    const missing = await get(`/auth/v1/user/email/confirm?client_id=${GUNGNIR.clientId}`);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("パラメータに不備がありました");
    // The upstream cannot name a brand for it, so no result page of a brand: the result is shown where the link is.
    const unknown = await get("/auth/v1/user/email/confirm?token=forged&client_id=no-such-client");
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get("Location")).toBeNull();
    expect(await unknown.text()).toContain(screens.changeEmailResult.failedBody);
  });

  it("is answered by the site, while every other call under /auth/v1/user stays closed to browsers", async () => {
    const token = await get(`/auth/v1/user/email/confirm?token=forged&client_id=${GUNGNIR.clientId}`);
    // The site's own answer (303 to the result page), not the upstream's relayed 302.
    expect(token.status).toBe(303);
    const closed: Array<[string, string]> = [
      ["POST", "/auth/v1/user/email/confirm"],
      ["PATCH", "/auth/v1/user/email"],
      ["PATCH", "/auth/v1/user/password"],
      ["POST", "/auth/v1/user/email"],
    ];
    for (const [method, path] of closed) {
      const response = await new Journey().request(path, {
        method,
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("register e-mail (product §2 RegisterEmail)", () => {
  let current: string;
  let fresh: string;
  beforeEach(() => {
    current = unique("unverified");
    fresh = unique("registered");
  });

  it("is reached after a sign-in with an unverified address and shows the notes of product §2", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    const response = await journey.request("/registerEmail");
    expect(response.status).toBe(200);
    const html = await response.text();
    for (const note of screens.registerEmail.notes) expect(html).toContain(note);
    expect(html).toContain('action="/registerEmail/sendCode"');
    expect(html).toContain('action="/registerEmail"');
  });

  it("sends a code, says where it went (server-side state, not the URL), confirms it, then MFA setup", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    const sent = await journey.postForm("/registerEmail/sendCode", { email: fresh });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("Location")).toBe("/registerEmail");
    expect(journey.has(`__Host-${sealedCookies.registerEmail.name}`)).toBe(true);
    const page = await (await journey.request("/registerEmail")).text();
    expect(page).toContain(screens.registerEmail.codeSent(fresh));
    expect(page).toContain(`value="${fresh}"`);

    const code = await emulator.latestCode(fresh);
    const confirmed = await journey.postForm("/registerEmail", { code });
    expect(confirmed.status).toBe(200);
    const modal = openModal(await confirmed.text());
    expect(modal).toContain(modals.emailCodeConfirmed.title);
    expect(modal).not.toContain('method="dialog"');
    // /callback marked that MFA setup follows the registration (product §2 after sign-in).
    expect(modal).toContain('href="/mfa/setup"');
    expect(confirmed.headers.getSetCookie().some((line) => /^__Host-register-email=;.*Max-Age=0/.test(line))).toBe(
      true,
    );
    expect(await signsIn(fresh, PASSWORD)).toBe(true);
  });

  it("without the MFA mark goes back to the authorization endpoint as extSignIn, with the stored registered values", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    const tokens = await sealedCookie("tokens", await journey.sealedKept("tokens"));
    const redirectUri = `https://app.${GUNGNIR.serviceId}.example/oauth/callback`;
    const authRequest = await sealedCookie("authRequest", {
      query: {
        client_id: GUNGNIR.clientId,
        view: "signIn",
        app_url: `https://app.${GUNGNIR.serviceId}.example`,
        callback_path: "/oauth/callback",
        state: "app-state-0001",
        scope: "openid",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      },
      serviceId: GUNGNIR.serviceId,
      redirectUri,
    });
    await postForm("/registerEmail/sendCode", { email: current }, [tokens]);
    const response = await postForm("/registerEmail", { code: await emulator.latestCode(current) }, [
      tokens,
      authRequest,
    ]);
    expect(response.status).toBe(200);
    const modal = withoutPhraseBreaks(openModal(await response.text()));
    const href = /href="([^"]*)"[^>]*>次へ進む/.exec(modal)?.[1]?.replaceAll("&amp;", "&");
    const next = new URL(href ?? "", ORIGIN);
    expect(next.pathname).toBe("/oauth2/auth");
    expect(Object.fromEntries(next.searchParams)).toMatchObject({
      view: "extSignIn",
      client_id: GUNGNIR.clientId,
      redirect_uri: redirectUri,
      state: "app-state-0001",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    });
  });

  it("without any auth request left, the next step is the service top", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    // The browser still has the tokens and its last service (the brand), but the hour of the auth request is over.
    const cookies = [
      await sealedCookie("tokens", await journey.sealedKept("tokens")),
      `__Host-service=${GUNGNIR.serviceId}`,
    ];
    await postForm("/registerEmail/sendCode", { email: current }, cookies);
    const response = await postForm("/registerEmail", { code: await emulator.latestCode(current) }, cookies);
    expect(openModal(await response.text())).toContain(`href="${SERVICE_TOP}"`);
  });

  it("says a wrong code is wrong and an expired one expired (401), and keeps the address it went to", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    await journey.postForm("/registerEmail/sendCode", { email: fresh });
    const code = await emulator.latestCode(fresh);
    const wrong = await journey.postForm("/registerEmail", { code: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain(fieldMessages["code.wrong"]);
    expect(html).toContain(screens.registerEmail.codeSent(fresh));
    await emulator.fault({ pathPattern: "/auth/v1/user/email/confirm", status: 400, body: { type: "expired_code" } });
    const expired = await journey.postForm("/registerEmail", { code });
    expect(expired.status).toBe(401);
    expect(await expired.text()).toContain(escapeHtml(fieldMessages["code.expired"]));
  });

  it("refuses an address another account holds (409), and a code that is not 6 digits (422) without a call", async () => {
    await emulator.seed({ email: "held@example.com" });
    const journey = await signedIn("signIn", current, { emailVerified: false });
    const taken = await journey.postForm("/registerEmail/sendCode", { email: "held@example.com" });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain(fieldMessages["email.taken"]);
    expect(journey.has(`__Host-${sealedCookies.registerEmail.name}`)).toBe(false);
    const calls = await watchAccountCalls();
    const short = await journey.postForm("/registerEmail", { code: "12345" });
    expect(short.status).toBe(422);
    expect(await short.text()).toContain(fieldMessages["code.invalid"]);
    expect(await calls()).toBe(0);
  });

  it("ignores where a code went for another user", async () => {
    const journey = await signedIn("signIn", current, { emailVerified: false });
    const tokens = await sealedCookie("tokens", await journey.sealedKept("tokens"));
    const someoneElses = await sealedCookie("registerEmail", {
      email: "theirs@example.com",
      hashedUserName: "f".repeat(64),
    });
    const html = await (await get("/registerEmail", [tokens, someoneElses])).text();
    expect(html).not.toContain("theirs@example.com");
  });
});

describe("tokens on the account screens (product §4, §6, §8)", () => {
  const screensAndForms = [
    ["/changePassword", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }],
    ["/changeEmail", { newEmail: "someone@example.com" }],
    ["/registerEmail/sendCode", { email: "someone@example.com" }],
    ["/registerEmail", { code: "123456" }],
  ] as const;

  it.each(screensAndForms)(
    "%s without the tokens cookie: the parameter problem (400), and no call",
    async (path, form) => {
      const calls = await watchAccountCalls();
      const screen = path === "/registerEmail/sendCode" ? "/registerEmail" : path;
      const page = await get(screen);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain("パラメータに不備がありました");
      const posted = await postForm(path, form);
      expect(posted.status).toBe(400);
      expect(openModal(await posted.text())).toContain("パラメータに不備がありました");
      expect(await calls()).toBe(0);
    },
  );

  const expiredTokens = (refreshToken?: string) =>
    sealedCookie("tokens", {
      clientId: GUNGNIR.clientId,
      accessToken: "expired-access-token",
      ...(refreshToken ? { refreshToken } : {}),
      expiresAt: Math.floor(Date.now() / 1000) - 60,
      scope: "user.write",
      tokenType: "bearer",
      hashedUserName: "0".repeat(64),
    });

  it.each(screensAndForms)(
    "%s with an expired token that cannot be refreshed: the expiry modal (401), no call",
    async (path, form) => {
      const calls = await watchAccountCalls();
      const cookies = [await expiredTokens("not-a-refresh-token")];
      const posted = await postForm(path, form, cookies);
      expect(posted.status).toBe(401);
      expect(openModal(await posted.text())).toContain(modals.tokenExpired.title);
      expect(await calls()).toBe(0);
    },
  );

  it("refreshes an expired access token once, then calls with the new one", async () => {
    const email = unique("refresh.once");
    const journey = await signedIn("passwordChange", email);
    const { refreshToken } = await journey.sealedKept("tokens");
    const stale = await expiredTokens(refreshToken);
    const changed = await postForm("/changePassword", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, [
      stale,
    ]);
    expect(changed.status).toBe(200);
    expect(openModal(await changed.text())).toContain(modals.passwordChanged.title);
    expect(changed.headers.getSetCookie().some((line) => line.startsWith(`${tokensCookie}=`))).toBe(true);
    expect(await signsIn(email, NEW_PASSWORD)).toBe(true);
    // The refresh token rotated: the same stale cookie cannot be refreshed a second time.
    const again = await postForm("/changePassword", { currentPassword: NEW_PASSWORD, newPassword: PASSWORD }, [stale]);
    expect(again.status).toBe(401);
    expect(await again.text()).toContain(modals.tokenExpired.title);
  });

  it("shows the expiry modal when the upstream refuses the bearer token", async () => {
    const journey = await signedIn("emailChange", unique("revoked"));
    await emulator.fault({
      method: "PATCH",
      pathPattern: "/auth/v1/user/email",
      status: 401,
      body: { type: "unauthorized" },
    });
    const response = await journey.postForm("/changeEmail", { newEmail: "elsewhere@example.com" });
    expect(response.status).toBe(401);
    expect(openModal(await response.text())).toContain(modals.tokenExpired.title);
  });

  const calls = [
    ["/changePassword", "PATCH", "/auth/v1/user/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }],
    ["/changeEmail", "PATCH", "/auth/v1/user/email", { newEmail: "spec8@example.com" }],
    ["/registerEmail/sendCode", "POST", "/auth/v1/user/email", { email: "spec8@example.com" }],
    ["/registerEmail", "POST", "/auth/v1/user/email/confirm", { code: "123456" }],
  ] as const;
  const failures = [
    ["500", { status: 500 }, 502, modals.unexpectedError.title],
    ["503", { status: 503 }, 503, modals.maintenance.title],
    ["a timeout", { delayMs: PAST_SHORT_TIMEOUT_MS }, 504, modals.unexpectedError.title],
    [
      "403 insufficient_scope",
      { status: 403, body: { type: "insufficient_scope" } },
      502,
      modals.unexpectedError.title,
    ],
    ["429", { status: 429, body: { type: "too_many_requests" } }, 429, modals.tooManyAttempts.title],
  ] as const;

  const cases = calls.flatMap(([path, method, upstreamPath, form]) =>
    failures.map(
      ([name, fault, status, title]) => [path, name, { method, upstreamPath, form, fault, status, title }] as const,
    ),
  );

  it.each(cases)(
    "%s after %s upstream shows its product §8 modal",
    async (path, _name, { method, upstreamPath, form, fault, status, title }) => {
      const journey = await signedIn("passwordChange", unique("spec8"));
      await emulator.fault({ method, pathPattern: upstreamPath, ...(fault as FaultAnswer) });
      // Codes to one address are limited at the edge; each case mails an address of its own. The delayed call's
      // request gives up after the short timeout; the others keep the project's.
      const response = await journey.postForm(
        path,
        "email" in form ? { email: unique("spec8") } : form,
        optionsForFault(fault),
      );
      expect(response.status).toBe(status);
      const html = await response.text();
      expect(openModal(html)).toContain(title);
      expectNoSecrets(html, [PASSWORD, NEW_PASSWORD]);
    },
  );
});

describe("the profile after /callback (product §7)", () => {
  it.each([
    ["500", { status: 500 }, 502],
    ["503", { status: 503 }, 502],
    ["401", { status: 401, body: { type: "unauthorized" } }, 502],
    ["a malformed 200", { status: 200, body: { email_verified: "yes" } }, 502],
    ["a timeout", { delayMs: PAST_SHORT_TIMEOUT_MS }, 504],
  ])("an answer of %s shows the unexpected-error modal", async (_name, fault, status) => {
    const email = unique("profile");
    await emulator.seed({ email: email });
    const journey = new Journey();
    const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
    await response.body?.cancel();
    const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
    const toCallback = await journey.request(login.headers.get("Location")!);
    await emulator.fault({ method: "GET", pathPattern: "/auth/v1/user/profile", ...(fault as FaultAnswer) });
    // The delayed call's request gives up after the short timeout; the others keep the project's.
    const options = optionsForFault(fault);
    const callback = await journey.request(toCallback.headers.get("Location")!, {}, options);
    expect(callback.status).toBe(status);
    expect(openModal(await callback.text())).toContain(modals.unexpectedError.title);
    await emulator.clearFaults();
  });
});

// Dozens of requests each, on two shared cores: more time than one journey needs.
describe("rate limits of the account forms (architecture §8)", { timeout: 30_000 }, () => {
  /**
   * Posts the form limit + 1 times, each from a new address; answers the statuses, the last the only 429 (the rate
   * limits count on the test's clock: docs/testing.md). `afterThePeriod` moves that clock past the period and posts
   * the form once more: its status, which the limit no longer refuses.
   */
  async function untilRefused(journey: Journey, path: string, form: Record<string, string>, limit: number) {
    const post = () => journey.request(path, formPost(form, { "CF-Connecting-IP": clientIp() }));
    const statuses: number[] = [];
    for (let n = 0; n < limit; n++) {
      const response = await post();
      statuses.push(response.status);
      await response.body?.cancel();
    }
    const refused = await post();
    statuses.push(refused.status);
    expect(statuses.slice(0, limit)).not.toContain(429);
    expect(refused.status, `attempt ${limit + 1} of ${statuses.join(", ")}`).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    const html = await refused.text();
    expect(openModal(html)).toContain(modals.tooManyAttempts.title);
    expect(html).toContain(`action="${path}"`);
    const afterThePeriod = async () => {
      rateLimitClock.advance(RETRY_AFTER_SECONDS);
      const response = await post();
      await response.body?.cancel();
      expect(response.status, "the next attempt, past the period").not.toBe(429);
      return response.status;
    };
    return { statuses, html, afterThePeriod };
  }

  it("credential, per user: the sixth current password in a minute gets 429 at the edge, echoing none", async () => {
    const journey = await signedIn("passwordChange", unique("limit.pw"));
    const { statuses, html, afterThePeriod } = await untilRefused(
      journey,
      "/changePassword",
      { currentPassword: "Wr0ng-Passw0rd!", newPassword: NEW_PASSWORD },
      5,
    );
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(5);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expectNoSecrets(html, ["Wr0ng-Passw0rd!", NEW_PASSWORD]);
    expect(await afterThePeriod()).toBe(401);
  });

  it("mail, per user: the fourth change request in a minute gets 429 before the upstream is asked", async () => {
    const journey = await signedIn("emailChange", unique("limit.change"));
    await emulator.fault({ method: "PATCH", pathPattern: "/auth/v1/user/email", status: 200, body: {}, times: 10 });
    const { statuses, afterThePeriod } = await untilRefused(
      journey,
      "/changeEmail",
      { newEmail: "limit.target@example.com" },
      3,
    );
    const faults = (await (await get("/__emulator/faults")).json()) as Array<{ remaining: number }>;
    expect(10 - (faults[0]?.remaining ?? 0)).toBe(statuses.length - 1);
    await afterThePeriod();
  });

  it("mail, per address: the fourth code to one address in a minute gets 429; another address is not limited", async () => {
    const journey = await signedIn("signIn", unique("limit.register"), { emailVerified: false });
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/user/email", status: 201, body: {}, times: 20 });
    const { afterThePeriod } = await untilRefused(journey, "/registerEmail/sendCode", { email: unique("Flood") }, 3);
    const other = await journey.request(
      "/registerEmail/sendCode",
      formPost({ email: "calm@example.com" }, { "CF-Connecting-IP": clientIp() }),
    );
    expect(other.status).toBe(303);
    expect(await afterThePeriod()).toBe(303);
  });

  it("code, per user: the sixth code in a minute gets 429", async () => {
    const email = unique("limit.code");
    const journey = await signedIn("signIn", email, { emailVerified: false });
    await journey.postForm("/registerEmail/sendCode", { email: email });
    const { statuses, afterThePeriod } = await untilRefused(journey, "/registerEmail", { code: "000000" }, 5);
    expect(statuses.slice(0, 5).every((status) => status === 401)).toBe(true);
    await afterThePeriod();
  });
});
