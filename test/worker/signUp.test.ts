import { beforeEach, describe, expect, it } from "vitest";
import { buttonLabels, fieldMessages, screens } from "../../messages/ja";
import { modals as modalMessages } from "../../messages/modals";
import type { View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import type { AppBrand } from "../support/appStart";
import { escapeHtml, expectModal, expectNoSecrets, expectRedirect } from "../support/expectations";
import { WEAK_PASSWORDS } from "../support/forms";
import { GUNGNIR, LEMON, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN, optionsForFault, PAST_SHORT_TIMEOUT_MS, postForm, sealedCookie } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// The sign-up POSTs (e-mail, password, back, code, resend) against the emulator,
// through the site exactly as a browser without JavaScript would post them.

type Brand = AppBrand;

beforeEach(async () => {
  await emulator.reset();
});

interface SignUpScreen {
  journey: Journey;
  /** The login challenge the OAuth2 server put in the login URL; it must never reach a page. */
  challenge: string;
  brand: Brand;
}

/** The app opens the site with view signUp; the OAuth2 server's login URL stores the challenge and lands on the e-mail step. */
async function openSignUp(brand: Brand = GUNGNIR, view: View = "signUp"): Promise<SignUpScreen> {
  const journey = new Journey();
  const { challenge, response } = await reachLoginScreen(journey, brand, view);
  expect(challenge.length).toBeGreaterThan(15);
  expect(response.status).toBe(200);
  expectNoSecrets(await response.text(), [challenge]);
  return { journey, challenge, brand };
}

/** The e-mail and password steps done: the code has been mailed and the sign-up state holds the username. */
async function untilCode(screen: SignUpScreen, email: string): Promise<string> {
  expectRedirect(await screen.journey.postForm("/signUp/checkEmail", { email }), "/signUp/inputPassword");
  expectRedirect(await screen.journey.postForm("/signUp/inputPassword", { password: PASSWORD }), "/signUp/confirmMail");
  return emulator.latestCode(email);
}

describe("a new user signs up through the site", () => {
  it("e-mail → password → mailed code → 303 to the OAuth2 endpoint, which hands the browser to /callback", async () => {
    const email = "new.user@example.com";
    const screen = await openSignUp();
    const { journey, challenge } = screen;
    const pages: string[] = [];

    expectRedirect(await journey.postForm("/signUp/checkEmail", { email }), "/signUp/inputPassword");
    expect(await journey.sealed("signUp")).toEqual({ loginChallenge: challenge, email });
    const passwordPage = await journey.request("/signUp/inputPassword");
    expect(passwordPage.status).toBe(200);
    pages.push(await passwordPage.text());
    // The e-mail read-only: as text, and in a hidden field for password managers.
    expect(pages.at(-1)).toContain(`<dd>${email}</dd>`);
    expect(pages.at(-1)).toContain(
      `<input type="email" autoComplete="username" readOnly="" hidden="" value="${email}"/>`,
    );

    expectRedirect(await journey.postForm("/signUp/inputPassword", { password: PASSWORD }), "/signUp/confirmMail");
    const state = await journey.sealed("signUp");
    expect(state).toMatchObject({
      loginChallenge: challenge,
      email,
      username: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const codePage = await journey.request("/signUp/confirmMail");
    expect(codePage.status).toBe(200);
    pages.push(await codePage.text());
    expect(pages.at(-1)).toContain(escapeHtml(screens.signUpConfirmMail.lead(email)));
    // 'Fix the e-mail' restarts the app's authorization (product §2), through a link with no state or challenge in it.
    expect(pages.at(-1)).toContain('href="/restart"');
    expect(pages.at(-1)).not.toMatch(/state=|code_challenge/);
    const restart = await journey.request("/restart");
    expect(restart.status).toBe(303);
    expect(restart.headers.get("Location")).toMatch(
      new RegExp(`^/${GUNGNIR.serviceId}/auth\\?[^"]*client_id=${GUNGNIR.clientId}[^"]*view=signUp`),
    );

    const code = await emulator.latestCode(email);
    const confirmed = await journey.postForm("/signUp/confirmMail", { code });
    expect(confirmed.status).toBe(303);
    const location = new URL(confirmed.headers.get("Location")!);
    expect(`${location.origin}${location.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
    expect(location.searchParams.get("login_verifier")).toMatch(/.{16,}/);
    expect(journey.has(`__Host-${sealedCookies.signUp.name}`)).toBe(false);

    const toCallback = await journey.request(location.toString());
    expect(toCallback.status).toBe(302);
    const callback = new URL(toCallback.headers.get("Location")!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${ORIGIN}/callback`);
    expect(callback.searchParams.get("code")).toMatch(/.{16,}/);
    // View signUp continues to the MFA setup (product §2 after sign-in).
    const { response: after } = await journey.follow(toCallback);
    expect(new URL(after.url).pathname).toBe("/mfa/setup");
    pages.push(await after.text());

    for (const html of pages) expectNoSecrets(html, [PASSWORD, challenge, code, state?.username]);
  });

  it("starts from the sign-in screen's link with the sign-in challenge, then keeps it in a sign-up cookie", async () => {
    const screen = await openSignUp(GUNGNIR, "signIn");
    expect(await screen.journey.sealed("signUp")).toBeUndefined();
    expectRedirect(
      await screen.journey.postForm("/signUp/checkEmail", { email: "from.signin@example.com" }),
      "/signUp/inputPassword",
    );
    expect(await screen.journey.sealed("signUp")).toEqual({
      loginChallenge: screen.challenge,
      email: "from.signin@example.com",
    });
  });
});

describe("POST /signUp/checkEmail", () => {
  it("says an e-mail with an account is already registered (409), keeps it and offers sign-in", async () => {
    await emulator.seed({ email: "taken@example.com" });
    const screen = await openSignUp();
    const html = await expectModal(
      await screen.journey.postForm("/signUp/checkEmail", { email: "taken@example.com" }),
      409,
      "alreadyRegistered",
    );
    expect(html).toContain('value="taken@example.com"');
    expect(html).toContain('href="/signIn"');
    expectNoSecrets(html, [screen.challenge]);
    expect((await screen.journey.sealed("signUp"))?.email).toBeUndefined();
    // The sign-in link works with the sign-up state.
    expect((await screen.journey.request("/signIn")).status).toBe(200);
  });

  it.each(["not-an-email", "two words@example.com", "a@b"])(
    "re-renders %j with the e-mail message (422), value kept",
    async (email) => {
      const screen = await openSignUp();
      const response = await screen.journey.postForm("/signUp/checkEmail", { email });
      expect(response.status).toBe(422);
      const html = await response.text();
      expect(html).toContain(fieldMessages["email.invalid"]);
      expect(html).toContain(`value="${email}"`);
      expect(await emulator.outbox(email)).toEqual([]);
    },
  );

  // The site's rule (product §5) lets "a@b.c" through; the identity API refuses it (400 invalid_request): still the
  // field's message, not the error modal of a failing upstream. Found by the fuzz.
  it("re-renders an address the identity API refuses with the e-mail message (422), value kept", async () => {
    const screen = await openSignUp();
    const response = await screen.journey.postForm("/signUp/checkEmail", { email: "a@b.c" });
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain(fieldMessages["email.invalid"]);
    expect(html).toContain('value="a@b.c"');
    expect(html).not.toContain('id="message-modal"');
    expect((await screen.journey.sealed("signUp"))?.email).toBeUndefined();
  });

  it.each([
    ["times out", { delayMs: PAST_SHORT_TIMEOUT_MS }, 504, "unexpectedError"],
    ["drops the connection", { drop: true }, 502, "unexpectedError"],
    ["is in maintenance", { status: 503, body: { type: "maintenance" } }, 503, "maintenance"],
  ] as const)("shows a modal, not a 500, when the upstream %s", async (_, fault, status, modal) => {
    await emulator.fault({ pathPattern: "/auth/v1/register/checkEmail", ...fault });
    const screen = await openSignUp();
    // The delayed call's request gives up after the short timeout; the others keep the project's.
    const options = optionsForFault(fault);
    const html = await expectModal(
      await screen.journey.postForm("/signUp/checkEmail", { email: "upstream.trouble@example.com" }, options),
      status,
      modal,
    );
    expect(html).toContain('value="upstream.trouble@example.com"');
  });
});

describe("POST /signUp/inputPassword", () => {
  it.each(WEAK_PASSWORDS)("refuses %j with its own message (422) and never echoes it", async (password, message) => {
    const screen = await openSignUp();
    // One address per case: the mail limit counts sign-ups per address (architecture §8).
    const email = `weak.${message.replace("password.", "")}@example.com`;
    expectRedirect(await screen.journey.postForm("/signUp/checkEmail", { email }), "/signUp/inputPassword");
    const response = await screen.journey.postForm("/signUp/inputPassword", { password });
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain(escapeHtml(fieldMessages[message]));
    expect(html).toContain(`value="${email}"`);
    expectNoSecrets(html, [password, screen.challenge]);
    expect(await emulator.outbox(email)).toEqual([]);
  });

  it("accepts 'Abcdefgh1' for liqueur-lemon, which skips the symbol and character checks (product §5)", async () => {
    const screen = await openSignUp(LEMON);
    expectRedirect(
      await screen.journey.postForm("/signUp/checkEmail", { email: "lemon.user@example.com" }),
      "/signUp/inputPassword",
    );
    expectRedirect(
      await screen.journey.postForm("/signUp/inputPassword", { password: "Abcdefgh1" }),
      "/signUp/confirmMail",
    );
    expect(await emulator.outbox("lemon.user@example.com")).toHaveLength(1);
  });

  it("keeps each brand's own rules whichever brand posted first (the form's checks are made once per brand)", async () => {
    // liqueur-lemon first, so its relaxed rules are the ones made first; gungnir's standard rules must still hold.
    const lemon = await openSignUp(LEMON);
    await lemon.journey.postForm("/signUp/checkEmail", { email: "lemon.first@example.com" });
    expectRedirect(
      await lemon.journey.postForm("/signUp/inputPassword", { password: "Abcdefgh1" }),
      "/signUp/confirmMail",
    );
    const gungnir = await openSignUp();
    await gungnir.journey.postForm("/signUp/checkEmail", { email: "gungnir.second@example.com" });
    const refused = await gungnir.journey.postForm("/signUp/inputPassword", { password: "Abcdefgh1" });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(escapeHtml(fieldMessages["password.symbol"]));
    expect(await emulator.outbox("gungnir.second@example.com")).toEqual([]);
  });

  it("takes the e-mail from the sign-up state, never from the form", async () => {
    const screen = await openSignUp();
    await screen.journey.postForm("/signUp/checkEmail", { email: "state.email@example.com" });
    const response = await screen.journey.postForm("/signUp/inputPassword", {
      password: PASSWORD,
      email: "form.email@example.com",
    });
    expectRedirect(response, "/signUp/confirmMail");
    expect(await emulator.outbox("state.email@example.com")).toHaveLength(1);
    expect(await emulator.outbox("form.email@example.com")).toEqual([]);
  });

  it("says the e-mail is already registered (409) when an account took it after the e-mail step", async () => {
    const screen = await openSignUp();
    expectRedirect(
      await screen.journey.postForm("/signUp/checkEmail", { email: "raced@example.com" }),
      "/signUp/inputPassword",
    );
    await emulator.seed({ email: "raced@example.com" });
    const html = await expectModal(
      await screen.journey.postForm("/signUp/inputPassword", { password: PASSWORD }),
      409,
      "alreadyRegistered",
    );
    expectNoSecrets(html, [PASSWORD, screen.challenge]);
  });

  it("asks to start again when the login challenge has expired, then drops the sign-up state", async () => {
    const screen = await openSignUp();
    await screen.journey.postForm("/signUp/checkEmail", { email: "late.password@example.com" });
    await emulator.clock(31 * 60 * 1000);
    await expectModal(await screen.journey.postForm("/signUp/inputPassword", { password: PASSWORD }), 409, "retry");
    expect(await screen.journey.sealed("signUp")).toBeUndefined();
    await expectModal(
      await screen.journey.postForm("/signUp/inputPassword", { password: PASSWORD }),
      400,
      "parameterError",
    );
  });
});

describe("POST /signUp/inputPassword/back (the Move button of the warning)", () => {
  it("drops the e-mail and username, keeps the challenge and goes back to the e-mail step", async () => {
    const screen = await openSignUp();
    await untilCode(screen, "changed.mind@example.com");
    expectRedirect(await screen.journey.postForm("/signUp/inputPassword/back", {}), "/signUp/checkEmail");
    expect(await screen.journey.sealed("signUp")).toEqual({ loginChallenge: screen.challenge });
    await expectModal(await screen.journey.request("/signUp/inputPassword"), 400, "parameterError");
    expect((await screen.journey.request("/signUp/checkEmail")).status).toBe(200);
    // The kept challenge signs up the corrected address.
    const code = await untilCode(screen, "corrected@example.com");
    expect((await screen.journey.postForm("/signUp/confirmMail", { code })).status).toBe(303);
  });

  it("renders the warning with its Move form on the password step", async () => {
    const screen = await openSignUp();
    await screen.journey.postForm("/signUp/checkEmail", { email: "warned@example.com" });
    const html = await (await screen.journey.request("/signUp/inputPassword")).text();
    const warning = modalMessages.signUpBackWarning;
    for (const part of [screens.signUpInputPassword.backToEmail, warning.title, warning.body, buttonLabels.move])
      expect(html).toContain(part);
    expect(html).toContain('action="/signUp/inputPassword/back"');
  });
});

describe("POST /signUp/confirmMail", () => {
  it("says a wrong code is wrong (401) and keeps the state for another try", async () => {
    const screen = await openSignUp();
    const code = await untilCode(screen, "wrong.code@example.com");
    const wrong = code === "000000" ? "111111" : "000000";
    const response = await screen.journey.postForm("/signUp/confirmMail", { code: wrong });
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain(fieldMessages["code.wrong"]);
    expect(html).toContain(escapeHtml(screens.signUpConfirmMail.lead("wrong.code@example.com")));
    expectNoSecrets(html, [code, screen.challenge]);
    expect((await screen.journey.postForm("/signUp/confirmMail", { code })).status).toBe(303);
  });

  it("says an expired code has expired (401)", async () => {
    const screen = await openSignUp();
    const code = await untilCode(screen, "expired.code@example.com");
    const { email, username } = (await screen.journey.sealed("signUp"))!;
    // Past the 24 h code; the 30 min challenge is gone too, so the same user goes on under a fresh one.
    await emulator.clock(24 * 60 * 60 * 1000 + 60 * 1000);
    const fresh = await openSignUp();
    const cookie = await sealedCookie("signUp", { loginChallenge: fresh.challenge, email, username });
    const response = await postForm("/signUp/confirmMail", { code }, [cookie]);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain(fieldMessages["code.expired"]);
  });

  it("re-renders a code that is not 6 digits (422)", async () => {
    const cookie = await sealedCookie("signUp", {
      loginChallenge: "challenge-0123456789",
      email: "x@example.com",
      username: "user-1",
    });
    const response = await postForm("/signUp/confirmMail", { code: "12a" }, [cookie]);
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toContain(fieldMessages["code.invalid"]);
    expectNoSecrets(html, ["challenge-0123456789", "user-1"]);
  });

  it("asks to start again when the login challenge has expired, then drops the sign-up state", async () => {
    const screen = await openSignUp();
    const code = await untilCode(screen, "late.code@example.com");
    await emulator.clock(31 * 60 * 1000);
    await expectModal(await screen.journey.postForm("/signUp/confirmMail", { code }), 409, "retry");
    await expectModal(await screen.journey.postForm("/signUp/confirmMail", { code }), 400, "parameterError");
  });

  it("refuses a redirect_to on a foreign origin: the unexpected-error modal, no redirect", async () => {
    const screen = await openSignUp();
    const code = await untilCode(screen, "foreign.redirect@example.com");
    await emulator.fault({
      pathPattern: "/auth/v1/register/confirm",
      status: 201,
      body: { redirect_to: "https://evil.example/" },
    });
    const response = await screen.journey.postForm("/signUp/confirmMail", { code });
    expect(response.headers.get("Location")).toBeNull();
    const html = await expectModal(response, 502, "unexpectedError");
    expect(html).not.toContain("evil.example");
  });

  it("asks to start again when the upstream answers without redirect_to", async () => {
    const screen = await openSignUp();
    const code = await untilCode(screen, "no.redirect@example.com");
    await emulator.fault({ pathPattern: "/auth/v1/register/confirm", status: 201, body: {} });
    // A 201 without redirect_to breaks the call's contract: the unexpected-error modal.
    await expectModal(await screen.journey.postForm("/signUp/confirmMail", { code }), 502, "unexpectedError");
  });
});

describe("POST /signUp/confirmMail/resend", () => {
  it("mails a fresh code that replaces the old one, then shows the code step again", async () => {
    const screen = await openSignUp();
    const first = await untilCode(screen, "resend@example.com");
    expectRedirect(await screen.journey.postForm("/signUp/confirmMail/resend", {}), "/signUp/confirmMail");
    const mails = await emulator.outbox("resend@example.com");
    expect(mails).toHaveLength(2);
    const fresh = mails[0]!.code!;
    if (fresh !== first)
      expect((await screen.journey.postForm("/signUp/confirmMail", { code: first })).status).toBe(401);
    expect((await screen.journey.postForm("/signUp/confirmMail", { code: fresh })).status).toBe(303);
  });
});

describe("every sign-up POST refuses what it must (product §8, architecture §8)", () => {
  const posts: Array<[string, Record<string, string>]> = [
    ["/signUp/checkEmail", { email: "someone@example.com" }],
    ["/signUp/inputPassword", { password: PASSWORD }],
    ["/signUp/inputPassword/back", {}],
    ["/signUp/confirmMail", { code: "123456" }],
    ["/signUp/confirmMail/resend", {}],
  ];

  it.each(posts)("POST %s without any state shows the parameter problem (400)", async (path, form) => {
    const html = await expectModal(await postForm(path, form), 400, "parameterError");
    expectNoSecrets(html, [PASSWORD]);
  });

  it.each(posts.filter(([path]) => path !== "/signUp/checkEmail" && path !== "/signUp/inputPassword/back"))(
    "POST %s with a sign-up cookie lacking its step's data shows the parameter problem (400)",
    async (path, form) => {
      const cookie = await sealedCookie("signUp", { loginChallenge: "challenge-0123456789" });
      const html = await expectModal(await postForm(path, form, [cookie]), 400, "parameterError");
      expectNoSecrets(html, ["challenge-0123456789"]);
    },
  );
});
