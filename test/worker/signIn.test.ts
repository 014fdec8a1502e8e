import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { fieldMessages, screens } from "../../messages/ja";
import { modals as modalMessages, modalText } from "../../messages/modals";
import type { View } from "../../worker/session/authRequest";
import type { AppBrand } from "../support/appStart";
import { escapeHtml, expectNoSecrets, expectRedirect } from "../support/expectations";
import { GUNGNIR, LEMON, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import {
  emulator,
  ORIGIN,
  optionsForFault,
  PAST_SHORT_TIMEOUT_MS,
  postForm,
  type SiteFetchOptions,
  sealedCookie,
} from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// The sign-in POSTs (credentials, second factor, forced new password) against the emulator, through the site
// exactly as a browser without JavaScript would post them.

type Brand = AppBrand;

beforeEach(async () => {
  await emulator.reset();
});

interface SignInScreen {
  journey: Journey;
  /** The login challenge the OAuth2 server put in the login URL; it must never reach a page. */
  challenge: string;
  brand: Brand;
}

/** The app opens the site for `view`; the OAuth2 server's login URL stores the challenge and lands on the sign-in screen. */
async function openSignIn(brand: Brand = GUNGNIR, view: View = "signIn"): Promise<SignInScreen> {
  const journey = new Journey();
  const { challenge, response } = await reachLoginScreen(journey, brand, view);
  expect(challenge.length).toBeGreaterThan(15);
  expect(response.status).toBe(200);
  const html = await response.text();
  // The form carries the brand's client_id, so the POST resolves the same service.
  expect(html).toContain(`name="client_id" value="${brand.clientId}"`);
  return { journey, challenge, brand };
}

function signIn(
  screen: SignInScreen,
  username: string,
  password = PASSWORD,
  options?: SiteFetchOptions,
): Promise<Response> {
  return screen.journey.postForm("/signIn", { client_id: screen.brand.clientId, username, password }, options);
}

/** The login is accepted: 303 to the allow-listed OAuth2 endpoint with a login_verifier, and the sign-in state is gone. */
async function expectLoginAccepted(response: Response, journey: Journey): Promise<void> {
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("Location")!);
  expect(`${location.origin}${location.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
  expect(location.searchParams.get("login_verifier")).toMatch(/.{16,}/);
  expect(await journey.sealed("signIn")).toBeUndefined();
}

describe("POST /signIn", () => {
  it("signs a user without a second factor in: 303 to the OAuth2 endpoint with a login_verifier", async () => {
    await emulator.seed({ email: "plain.signin@example.com" });
    const screen = await openSignIn();
    const response = await signIn(screen, "plain.signin@example.com");
    await expectLoginAccepted(response, screen.journey);
    expect(screen.journey.has("__Host-device")).toBe(true);
    // The OAuth2 server takes the verifier and hands the browser on to the site's callback.
    const next = await screen.journey.request(response.headers.get("Location")!);
    expect(new URL(next.headers.get("Location")!).pathname).toBe("/callback");
  });

  it("accepts the challenge kept by the sign-up view ('already have an account')", async () => {
    await emulator.seed({ email: "from.signup@example.com" });
    const journey = new Journey();
    const { response: signUpScreen } = await reachLoginScreen(journey, GUNGNIR, "signUp");
    expect(await signUpScreen.text()).toContain('action="/signUp/checkEmail"');

    const response = await journey.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: "from.signup@example.com",
      password: PASSWORD,
    });
    await expectLoginAccepted(response, journey);
  });

  it("says the login ID or password is wrong (401), keeps the login ID and never echoes the password", async () => {
    await emulator.seed({ email: "wrong.password@example.com" });
    const screen = await openSignIn();
    const response = await signIn(screen, "wrong.password@example.com", "Wr0ngPassword!");
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(modalMessages.loginFailed.title);
    expect(html).toContain(modalMessages.loginFailed.body);
    expect(html).toContain('value="wrong.password@example.com"');
    expectNoSecrets(html, ["Wr0ngPassword!", screen.challenge]);
    expect((await screen.journey.sealed("signIn"))?.loginChallenge).toBe(screen.challenge);
  });

  it("answers a locked account exactly like a wrong password", async () => {
    await emulator.seed({ email: "locked@example.com" });
    const screen = await openSignIn();
    // The upstream's lock answers as a wrong password does (the edge's own limit comes first; rateLimit.test.ts).
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 401, body: { type: "invalid_credentials" } });
    const response = await signIn(screen, "locked@example.com", PASSWORD);
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(modalMessages.loginFailed.title);
    expectNoSecrets(html, [PASSWORD, screen.challenge]);
  });

  it("re-renders an invalid form with field messages (422), keeping the login ID only", async () => {
    const screen = await openSignIn();
    const blankId = await screen.journey.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: " ",
      password: PASSWORD,
    });
    expect(blankId.status).toBe(422);
    expect(await blankId.text()).toContain(fieldMessages["field.required"]);
    const weak = await signIn(screen, "someone@example.com", "password1");
    expect(weak.status).toBe(422);
    const html = await weak.text();
    // The first field refused takes the focus as the page loads, and only it (docs/accessibility.md).
    const focused = html.match(/<input [^>]*autofocus=""[^>]*>/g) ?? [];
    expect(focused).toEqual([expect.stringContaining('id="field-password"')]);
    expect(html.match(/ autofocus=""/g)).toHaveLength(1);
    expect(focused[0]).toContain('aria-invalid="true"');
    expect(html).toContain("<title>エラー：認証-");
    expect(html).toContain(fieldMessages["password.uppercase"]);
    expect(html).toContain('value="someone@example.com"');
    expectNoSecrets(html, ["password1", screen.challenge]);
  });

  it.each([
    [LEMON.serviceId, LEMON, true],
    [GUNGNIR.serviceId, GUNGNIR, false],
  ])("refuses a user in system transfer on %s with its notice (403)", async (_, brand, mailsReset) => {
    const email = `transfer.${brand.serviceId}@example.com`;
    await emulator.seed({ email, transferInProgress: true });
    const screen = await openSignIn(brand);
    const response = await signIn(screen, email);
    expect(response.status).toBe(403);
    const html = await response.text();
    const earlier = "レモンネット証券";
    const context = { providerName: "カザハナ証券", earlierServiceName: earlier, senderDomain: "" };
    if (mailsReset) {
      const notice = modalText("requirePasswordInit", context);
      expect(html).toContain(notice.title);
      expect(html).toContain(escapeHtml(notice.body));
    } else {
      expect(html).toContain(modalText("transferElsewhere", context).title);
      expect(html).toContain(earlier);
      expect(html).not.toContain(modalMessages.requirePasswordInit.title);
    }
    expect(html).toMatch(/<dialog open=""[^>]*id="message-modal"/);
    const mails = await emulator.outbox(email);
    expect(mails).toHaveLength(mailsReset ? 1 : 0);
    if (mailsReset) expect(mails[0]!.link).toContain(`${ORIGIN}/liqueur-lemon/initiatePassword?`);
    expectNoSecrets(html, [PASSWORD, screen.challenge]);
  });

  it("refuses a redirect_to on a foreign origin: the unexpected-error modal, no redirect", async () => {
    await emulator.seed({ email: "foreign.redirect@example.com" });
    await emulator.fault({
      pathPattern: "/auth/v1/login",
      status: 201,
      body: { redirect_to: "https://evil.example/x" },
    });
    const screen = await openSignIn();
    const response = await signIn(screen, "foreign.redirect@example.com");
    expect(response.status).toBe(502);
    expect(response.headers.get("Location")).toBeNull();
    const html = await response.text();
    expect(html).toContain(modalMessages.unexpectedError.title);
    expect(html).not.toContain("evil.example");
  });

  it("asks to start again when the login answers without redirect_to", async () => {
    await emulator.seed({ email: "no.redirect@example.com" });
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 201, body: {} });
    const screen = await openSignIn();
    const response = await signIn(screen, "no.redirect@example.com");
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("もう一度やり直してください");
  });

  // product §8 reads "failed login (non-201)" as wrong ID or password; an upstream that cannot answer is not a wrong
  // password (telling people so while the service is down sends them to reset it), so 5xx and timeouts keep
  // UNEXPECTED_ERROR, and 503 MAINTENANCE.
  it.each([
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS, status: 503 }, 504, modalMessages.unexpectedError.title],
    ["drops the connection", { drop: true }, 502, modalMessages.unexpectedError.title],
    ["answers a malformed body", { status: 201, malformed: true }, 502, modalMessages.unexpectedError.title],
    ["answers 500", { status: 500 }, 502, modalMessages.unexpectedError.title],
    ["answers 502", { status: 502 }, 502, modalMessages.unexpectedError.title],
    ["answers 503 without a body", { status: 503 }, 503, modalMessages.maintenance.title],
    ["is in maintenance", { status: 503, body: { type: "maintenance" } }, 503, modalMessages.maintenance.title],
    [
      "answers 500 naming invalid_credentials",
      { status: 500, body: { type: "invalid_credentials" } },
      502,
      modalMessages.unexpectedError.title,
    ],
  ])(
    "shows a modal, not a 500 and not 'wrong ID or password', when the upstream %s",
    async (name, fault, status, title) => {
      // One login ID per case: the per-subject credential limit (5 a minute) would answer the sixth.
      const email = `upstream.${name.replace(/\W+/g, "-")}@example.com`;
      await emulator.seed({ email });
      await emulator.fault({ pathPattern: "/auth/v1/login", ...fault });
      const screen = await openSignIn();
      // The delayed call's request gives up after the short timeout; the others keep the project's.
      const response = await signIn(screen, email, PASSWORD, optionsForFault(fault));
      expect(response.status).toBe(status);
      const html = await response.text();
      expect(html).toContain(title);
      expect(html).not.toContain(modalMessages.loginFailed.title);
      expect(html).toContain(`value="${email}"`);
      expectNoSecrets(html, [PASSWORD]);
    },
  );

  it("asks to start again when the login challenge has expired", async () => {
    await emulator.seed({ email: "late@example.com" });
    const screen = await openSignIn();
    await emulator.clock(31 * 60 * 1000);
    const response = await signIn(screen, "late@example.com");
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(modalMessages.retry.title);
  });
});

describe("POST /signIn/mfa", () => {
  it("signs in with an authenticator code computed from the seeded secret", async () => {
    await emulator.seed({ email: "totp.signin@example.com", mfa: { totp: TOTP_SECRET } });
    const screen = await openSignIn();
    expectRedirect(await signIn(screen, "totp.signin@example.com"), "/signIn/mfa");
    const state = await screen.journey.sealed("signIn");
    expect(state).toMatchObject({
      loginChallenge: screen.challenge,
      username: "totp.signin@example.com",
      mfa: { type: "TOTP" },
    });
    const page = await screen.journey.request("/signIn/mfa");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(screens.signInMfa.titleTotp);
    expectNoSecrets(html, [state?.mfa?.session, screen.challenge, PASSWORD, TOTP_SECRET]);

    const response = await screen.journey.postForm("/signIn/mfa", {
      mfaCode: new TOTP({ secret: TOTP_SECRET }).generate(),
    });
    await expectLoginAccepted(response, screen.journey);
    // The session is spent: posting again is a parameter problem, not a second login.
    const again = await screen.journey.postForm("/signIn/mfa", { mfaCode: "123456" });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain(modalMessages.parameterError.title);
  });

  it("signs in with an SMS code from the outbox; the page has the 3-minute note and the start-over help", async () => {
    const phone = "+8109012340001";
    await emulator.seed({ email: "sms.signin@example.com", mfa: { sms: phone } });
    const screen = await openSignIn();
    expectRedirect(await signIn(screen, "sms.signin@example.com"), "/signIn/mfa");
    const html = await (await screen.journey.request("/signIn/mfa")).text();
    const text = screens.signInMfa;
    for (const part of [text.titleSms, text.smsValidity, text.smsHelpLink, modalMessages.smsHelp.body])
      expect(html).toContain(part);
    // 'Start over' restarts the app's authorization, through a link with no state or challenge in it.
    expect(html).toContain('href="/restart"');
    expect(html).not.toMatch(/state=|code_challenge/);
    const [sms] = await emulator.outbox(phone);
    expect(sms?.code).toMatch(/^\d{6}$/);
    expectNoSecrets(html, [sms?.code, (await screen.journey.sealed("signIn"))?.mfa?.session, screen.challenge]);
    await expectLoginAccepted(await screen.journey.postForm("/signIn/mfa", { mfaCode: sms!.code! }), screen.journey);
  });

  it("says a wrong code is wrong (401) and keeps the session for another try", async () => {
    await emulator.seed({ email: "totp.wrong@example.com", mfa: { totp: TOTP_SECRET } });
    const screen = await openSignIn();
    await signIn(screen, "totp.wrong@example.com");
    const right = new TOTP({ secret: TOTP_SECRET }).generate();
    const wrong = right === "000000" ? "111111" : "000000";
    const response = await screen.journey.postForm("/signIn/mfa", { mfaCode: wrong });
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(fieldMessages["mfaCode.wrong"]);
    expect(html).toContain(screens.signInMfa.titleTotp);
    await expectLoginAccepted(await screen.journey.postForm("/signIn/mfa", { mfaCode: right }), screen.journey);
  });

  it("says an expired SMS code has expired (401)", async () => {
    const phone = "+8109012340002";
    await emulator.seed({ email: "sms.late@example.com", mfa: { sms: phone } });
    const screen = await openSignIn();
    await signIn(screen, "sms.late@example.com");
    const [sms] = await emulator.outbox(phone);
    await emulator.clock(3 * 60 * 1000 + 1000);
    const response = await screen.journey.postForm("/signIn/mfa", { mfaCode: sms!.code! });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain(fieldMessages["mfaCode.expired"]);
  });

  it("asks to start again when the MFA session has expired, then drops it", async () => {
    await emulator.seed({ email: "totp.late@example.com", mfa: { totp: TOTP_SECRET } });
    const screen = await openSignIn();
    await signIn(screen, "totp.late@example.com");
    await emulator.clock(11 * 60 * 1000);
    const response = await screen.journey.postForm("/signIn/mfa", { mfaCode: "123456" });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(modalMessages.retry.title);
    expect(await screen.journey.sealed("signIn")).toEqual({
      loginChallenge: screen.challenge,
      username: "totp.late@example.com",
    });
  });

  it("posts the login ID the password step was accepted with (product §7), in whatever letter case it was typed", async () => {
    await emulator.seed({ email: "totp.case@example.com", mfa: { totp: TOTP_SECRET } });
    const screen = await openSignIn();
    expectRedirect(await signIn(screen, "TOTP.Case@Example.com"), "/signIn/mfa");
    expect((await screen.journey.sealed("signIn"))?.username).toBe("TOTP.Case@Example.com");
    const response = await screen.journey.postForm("/signIn/mfa", {
      mfaCode: new TOTP({ secret: TOTP_SECRET }).generate(),
    });
    await expectLoginAccepted(response, screen.journey);
  });

  it("asks to start again when the session is posted for another user (the upstream ties it to its user)", async () => {
    await emulator.seed({ email: "totp.owner@example.com", mfa: { totp: TOTP_SECRET } });
    await emulator.seed({ email: "someone.else@example.com" });
    const screen = await openSignIn();
    await signIn(screen, "totp.owner@example.com");
    const state = await screen.journey.sealed("signIn");
    const swapped = await sealedCookie("signIn", { ...state!, username: "someone.else@example.com" });
    const response = await postForm("/signIn/mfa", { mfaCode: new TOTP({ secret: TOTP_SECRET }).generate() }, [
      swapped,
    ]);
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(modalMessages.retry.title);
  });

  it("shows the parameter problem for an MFA state without its login ID", async () => {
    const cookie = await sealedCookie("signIn", {
      loginChallenge: "challenge-0123456789",
      mfa: { session: "session-0123456789", type: "TOTP" },
    });
    const response = await postForm("/signIn/mfa", { mfaCode: "123456" }, [cookie]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(modalMessages.parameterError.title);
  });

  it("re-renders a code that is not 6 digits (422)", async () => {
    const cookie = await sealedCookie("signIn", {
      loginChallenge: "challenge-0123456789",
      username: "someone@example.com",
      mfa: { session: "session-0123456789", type: "SMS" },
    });
    const response = await postForm("/signIn/mfa", { mfaCode: "12a" }, [cookie]);
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain(fieldMessages["code.invalid"]);
    expect(html).toContain(screens.signInMfa.titleSms);
    expectNoSecrets(html, ["session-0123456789", "challenge-0123456789"]);
  });
});

describe("POST /changePasswordInForceChangePassword", () => {
  it("sets the new password, then the login is accepted", async () => {
    await emulator.seed({ email: "force.signin@example.com", forceChangePassword: true });
    const screen = await openSignIn();
    expectRedirect(await signIn(screen, "force.signin@example.com"), "/changePasswordInForceChangePassword");
    const state = await screen.journey.sealed("signIn");
    expect(state?.forceChangePassword?.session).toBeTruthy();
    const page = await screen.journey.request("/changePasswordInForceChangePassword");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(screens.changePasswordInForceChangePassword.lead);
    expectNoSecrets(html, [state?.forceChangePassword?.session, screen.challenge, PASSWORD]);

    const weak = await screen.journey.postForm("/changePasswordInForceChangePassword", { newPassword: "N3wPassword" });
    expect(weak.status).toBe(422);
    const weakHtml = await weak.text();
    expect(weakHtml).toContain(escapeHtml(fieldMessages["password.symbol"]));
    expectNoSecrets(weakHtml, ["N3wPassword"]);

    await expectLoginAccepted(
      await screen.journey.postForm("/changePasswordInForceChangePassword", { newPassword: "N3wPassw0rd!" }),
      screen.journey,
    );
    // The new password is the one that works from now on.
    const next = await openSignIn();
    expect((await signIn(next, "force.signin@example.com")).status).toBe(401);
    await expectLoginAccepted(await signIn(next, "force.signin@example.com", "N3wPassw0rd!"), next.journey);
  });

  it("comes after the second factor when the account has one: the password stands until every factor passed", async () => {
    await emulator.seed({ email: "force.totp@example.com", forceChangePassword: true, mfa: { totp: TOTP_SECRET } });
    const screen = await openSignIn();
    expectRedirect(await signIn(screen, "force.totp@example.com"), "/signIn/mfa");
    expect((await screen.journey.sealed("signIn"))?.mfa?.type).toBe("TOTP");
    expectRedirect(
      await screen.journey.postForm("/signIn/mfa", { mfaCode: new TOTP({ secret: TOTP_SECRET }).generate() }),
      "/changePasswordInForceChangePassword",
    );
    await expectLoginAccepted(
      await screen.journey.postForm("/changePasswordInForceChangePassword", { newPassword: "N3wPassw0rd!" }),
      screen.journey,
    );
  });
});

describe("every sign-in POST refuses what it must (product §8, architecture §8)", () => {
  const posts: Array<[string, Record<string, string>]> = [
    ["/signIn", { client_id: GUNGNIR.clientId, username: "someone@example.com", password: PASSWORD }],
    ["/signIn/mfa", { mfaCode: "123456" }],
    ["/changePasswordInForceChangePassword", { newPassword: "N3wPassw0rd!" }],
  ];

  it.each(posts)("POST %s without its state shows the parameter problem (400)", async (path, form) => {
    const response = await postForm(path, form);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain(modalMessages.parameterError.title);
    expect(html).toContain(modalMessages.parameterError.body);
  });

  it.each(posts.slice(1))(
    "POST %s with a sign-in cookie lacking its session shows the parameter problem (400)",
    async (path, form) => {
      const cookie = await sealedCookie("signIn", { loginChallenge: "challenge-0123456789" });
      const response = await postForm(path, form, [cookie]);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(modalMessages.parameterError.title);
    },
  );
});
