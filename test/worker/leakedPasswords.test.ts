import { TOTP } from "otpauth";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { sha1Hex } from "../../forms/pwnedRange";
import { fieldMessages } from "../../messages/ja";
import type { ModalKey } from "../../messages/modals";
import { escapeHtml, expectModal, expectNoSecrets, expectRedirect } from "../support/expectations";
import { GUNGNIR, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { emulator, ORIGIN, PAST_SHORT_TIMEOUT_MS, type SiteFetchOptions } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// docs/security.md "Leaked passwords": every form where a password is chosen refuses one on the range API's list
// (the emulator's, through the IDENTITY binding) and one that names the user or the brand, with the field's message
// (422); lets the password through when the list does not answer in time or fails, and logs that it did; sends no
// more than five hex digits of the hash; and asks the range API once per prefix (the edge cache).

/** A password of this test's own, meeting product §5: its hash's prefix is almost surely no other test's. */
const freshPassword = () => `Lk-${crypto.randomUUID().slice(0, 13)}9Z`;
/** An address of this test's own, whose local part meets product §5 too (a letter of each case, a digit, a symbol). */
const unique = (name: string) => `Leaked.${name}.${crypto.randomUUID().slice(0, 8)}9@example.com`;

const swapCase = (text: string) =>
  [...text].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join("");

/** The time budget of a request that tests it: production's. */
const DEPLOYED_BUDGET: SiteFetchOptions = { env: { PWNED_PASSWORDS_TIMEOUT_MS: "300" } };

type Post = (password: string, options?: SiteFetchOptions) => Promise<Response>;

interface ChosenPasswordForm {
  path: string;
  /** The field the password is posted in. */
  field: string;
  /** Reaches the form as a browser does, for a new user at `email`; answers how to post a password on it. */
  reach(email: string): Promise<Post>;
  /** Fails unless the response is the form's acceptance of the password. */
  accepted(response: Response): Promise<void>;
}

/** A seeded user asks for a reset mail; the mailed link's form of `page`, posted with the link's fields. */
function mailedLinkForm(page: "forgotPassword" | "initiatePassword", done: ModalKey): ChosenPasswordForm {
  return {
    path: `/${GUNGNIR.serviceId}/${page}`,
    field: "newPassword",
    async reach(email) {
      await emulator.seed({ email });
      const journey = new Journey();
      expect((await journey.postForm("/resetPassword", { client_id: GUNGNIR.clientId, email })).status).toBe(303);
      // An initiation link's code is a reset code (the emulator's `password/forgot`): the same fields serve both pages.
      const fields = Object.fromEntries(new URL((await emulator.latest(email)).link ?? "").searchParams);
      return (newPassword, options) => journey.postForm(this.path, { ...fields, newPassword }, options);
    },
    async accepted(response) {
      await expectModal(response, 200, done, { providerName: "", earlierServiceName: "", senderDomain: "" });
    },
  };
}

const FORMS: Record<string, ChosenPasswordForm> = {
  "sign-up": {
    path: "/signUp/inputPassword",
    field: "password",
    async reach(email) {
      const journey = new Journey();
      await (await reachLoginScreen(journey, GUNGNIR, "signUp")).response.body?.cancel();
      expectRedirect(await journey.postForm("/signUp/checkEmail", { email }), "/signUp/inputPassword");
      return (password, options) => journey.postForm(this.path, { password }, options);
    },
    async accepted(response) {
      expectRedirect(response, "/signUp/confirmMail");
    },
  },
  reset: mailedLinkForm("forgotPassword", "passwordReset"),
  initiation: mailedLinkForm("initiatePassword", "passwordInitiated"),
  "change password": {
    path: "/changePassword",
    field: "newPassword",
    async reach(email) {
      await emulator.seed({ email });
      const journey = new Journey();
      await (await reachLoginScreen(journey, GUNGNIR, "passwordChange")).response.body?.cancel();
      const login = await journey.postForm("/signIn", {
        client_id: GUNGNIR.clientId,
        username: email,
        password: PASSWORD,
      });
      const { response } = await journey.follow(login);
      expect(new URL(response.url).pathname).toBe(this.path);
      await response.body?.cancel();
      return (newPassword, options) => journey.postForm(this.path, { currentPassword: PASSWORD, newPassword }, options);
    },
    async accepted(response) {
      await expectModal(response, 200, "passwordChanged");
    },
  },
  "forced new password": {
    path: "/changePasswordInForceChangePassword",
    field: "newPassword",
    async reach(email) {
      await emulator.seed({ email, forceChangePassword: true });
      const journey = new Journey();
      await (await reachLoginScreen(journey, GUNGNIR, "signIn")).response.body?.cancel();
      const login = await journey.postForm("/signIn", {
        client_id: GUNGNIR.clientId,
        username: email,
        password: PASSWORD,
      });
      expectRedirect(login, this.path);
      return (newPassword, options) => journey.postForm(this.path, { newPassword }, options);
    },
    async accepted(response) {
      expect(response.status).toBe(303);
      expect(response.headers.get("Location")).toMatch(new RegExp(`^${ORIGIN}/oauth2/auth\\?.*login_verifier=`));
    },
  },
};

/**
 * The form's answer: 422 with `message` under its password field (the island's props hold every message it may
 * show, so the page's text alone proves nothing), and neither the password nor its hash in the page.
 */
async function expectRefused(
  form: ChosenPasswordForm,
  response: Response,
  message: keyof typeof fieldMessages,
  password: string,
) {
  expect(response.status).toBe(422);
  const html = await response.text();
  const shown = new RegExp(`<p [^>]*id="field-${form.field}-message"[^>]*>([^<]*)</p>`).exec(html)?.[1];
  expect(shown).toBe(escapeHtml(fieldMessages[message]));
  expectNoSecrets(html, [password, await sha1Hex(password)]);
}

/** The range requests the emulator received for this password's prefix. */
async function rangeRequestsFor(password: string) {
  const prefix = (await sha1Hex(password)).slice(0, 5);
  return (await emulator.rangeRequests()).filter((request) => request.url.includes(prefix));
}

let spies: MockInstance[] = [];
/** Every JSON log line the site wrote during the test. */
const logLines = () =>
  spies.flatMap((spy) =>
    spy.mock.calls.flatMap((args) => {
      try {
        return [JSON.parse(String(args[0])) as Record<string, unknown>];
      } catch {
        return [];
      }
    }),
  );

beforeEach(() => {
  spies = (["info", "warn", "error"] as const).map((level) => vi.spyOn(console, level).mockImplementation(() => {}));
});
afterEach(() => {
  for (const spy of spies) spy.mockRestore();
});

describe.each(Object.entries(FORMS))("%s: a chosen password", (_, form) => {
  it("is refused when the list has it, with the field's message, and an unlisted one is then accepted", async () => {
    const post = await form.reach(unique("listed"));
    const listed = freshPassword();
    await emulator.leakPassword(listed);
    await expectRefused(form, await post(listed), "password.leaked", listed);
    const posts = logLines().filter((entry) => entry.event === "request" && entry.method === "POST");
    expect(posts.at(-1)).toMatchObject({
      path: form.path,
      status: 422,
      outcome: "form_errors",
      passwordCheck: "listed",
    });
    await form.accepted(await post(freshPassword()));
  });

  it("is refused when it names the brand (or the user, where the form knows who)", async () => {
    const email = unique("context");
    const post = await form.reach(email);
    const naming = "Aurora-2024x";
    await expectRefused(form, await post(naming), "password.context", naming);
    // Case-insensitively (NFKC's full-width forms and the local part alone: forms/rules.test.ts). Sign-up allows
    // three posts a minute per address, the e-mail step's included.
    if (form.path !== "/changePassword")
      await expectRefused(form, await post(swapCase(email)), "password.context", swapCase(email));
    // The context words are checked before the list: nothing was asked for these.
    expect(await rangeRequestsFor(naming)).toEqual([]);
  });

  it("is let through when the list does not answer within the time budget, and the log says so", async () => {
    const post = await form.reach(unique("slow"));
    const listed = freshPassword();
    const prefix = await emulator.leakPassword(listed);
    await emulator.fault({ method: "GET", pathPattern: `/range/${prefix}`, delayMs: PAST_SHORT_TIMEOUT_MS });
    const started = Date.now();
    await form.accepted(await post(listed, DEPLOYED_BUDGET));
    expect(Date.now() - started).toBeLessThan(PAST_SHORT_TIMEOUT_MS);
    expect(logLines()).toContainEqual(expect.objectContaining({ event: "password_check_skipped", reason: "timeout" }));
    expect(logLines()).toContainEqual(
      expect.objectContaining({ event: "request", path: form.path, passwordCheck: "skipped" }),
    );
  });

  it("is let through when the list answers with a server error, and the log says so", async () => {
    const post = await form.reach(unique("failing"));
    const listed = freshPassword();
    const prefix = await emulator.leakPassword(listed);
    await emulator.fault({ method: "GET", pathPattern: `/range/${prefix}`, status: 503, body: "Service Unavailable" });
    await form.accepted(await post(listed));
    expect(logLines()).toContainEqual(
      expect.objectContaining({ event: "password_check_skipped", reason: "status", status: 503 }),
    );
    expect(logLines()).toContainEqual(
      expect.objectContaining({
        event: "request",
        path: form.path,
        passwordCheck: "skipped",
        upstream: expect.arrayContaining([expect.objectContaining({ call: "GET /range", status: 503 })]),
      }),
    );
  });

  it("sends the range API five hex digits of its hash alone, and asks once per prefix", async () => {
    const post = await form.reach(unique("private"));
    const listed = freshPassword();
    const hash = await sha1Hex(listed);
    await emulator.leakPassword(listed);
    await expectRefused(form, await post(listed), "password.leaked", listed);
    await expectRefused(form, await post(listed), "password.leaked", listed);
    const asked = await rangeRequestsFor(listed);
    // The second refusal came from the edge cache.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ url: `/range/${hash.slice(0, 5)}`, bodyBytes: 0 });
    expect(asked[0]?.headers).toMatchObject({ "add-padding": "true" });
    for (const request of await emulator.rangeRequests()) {
      const sent = JSON.stringify(request);
      for (const secret of [listed, hash.slice(5), hash.slice(5, 15), encodeURIComponent(listed)])
        expect(sent).not.toContain(secret);
    }
  });
});

describe("GET /password/range/{prefix}: the range for the password field's island", () => {
  it("answers the cached padded range of a prefix, no-store", async () => {
    const listed = freshPassword();
    const hash = await sha1Hex(listed);
    await emulator.leakPassword(listed);
    const journey = new Journey();
    const response = await journey.request(`/password/range/${hash.slice(0, 5).toLowerCase()}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const lines = (await response.text()).split("\r\n");
    expect(lines.length).toBeGreaterThanOrEqual(800);
    expect(lines).toContain(`${hash.slice(5)}:1`);
    await (await journey.request(`/password/range/${hash.slice(0, 5)}`)).body?.cancel();
    expect(await rangeRequestsFor(listed)).toHaveLength(1);
  });

  it.each(["ABCD", "ABCDEF", "GHIJK", "21BD1%2F"])("is 404 for the prefix %j", async (prefix) => {
    const response = await new Journey().request(`/password/range/${prefix}`);
    expect(response.status).toBe(404);
    await response.body?.cancel();
  });

  it("answers 204 when the range API failed, so that the island leaves the check to the form", async () => {
    const hash = await sha1Hex(freshPassword());
    await emulator.fault({ method: "GET", pathPattern: `/range/${hash.slice(0, 5)}`, status: 500 });
    const response = await new Journey().request(`/password/range/${hash.slice(0, 5)}`);
    expect(response.status).toBe(204);
    expect(logLines()).toContainEqual(expect.objectContaining({ event: "password_check_skipped", reason: "status" }));
  });

  it("answers 204 when the check is off (PWNED_PASSWORDS_URL empty), and asks nothing", async () => {
    const password = freshPassword();
    const hash = await sha1Hex(password);
    const off = { env: { PWNED_PASSWORDS_URL: "" } };
    const response = await new Journey().request(`/password/range/${hash.slice(0, 5)}`, {}, off);
    expect(response.status).toBe(204);
    expect(await rangeRequestsFor(password)).toEqual([]);
  });
});

describe("sign-in with a password on the list", () => {
  /** A seeded account whose password is `password`, on the sign-in screen of a fresh browser: posts its login. */
  async function signIn(email: string, password: string, typed = password, options?: SiteFetchOptions) {
    await emulator.seed({ email, password });
    const journey = new Journey();
    await (await reachLoginScreen(journey, GUNGNIR, "signIn")).response.body?.cancel();
    const login = await journey.postForm(
      "/signIn",
      { client_id: GUNGNIR.clientId, username: email, password: typed },
      options,
    );
    return { journey, login };
  }

  const marked = async (email: string) => (await emulator.user(email)).forceChangePassword;

  it("goes through the forced new password, which refuses a listed one too, before the app", async () => {
    const email = unique("signin");
    const listed = freshPassword();
    await emulator.leakPassword(listed);
    const { journey, login } = await signIn(email, listed);
    expectRedirect(login, "/changePasswordInForceChangePassword");
    expect(logLines()).toContainEqual(
      expect.objectContaining({ event: "request", path: "/signIn", status: 303, passwordCheck: "listed" }),
    );
    expect(await marked(email)).toBe(true);
    const page = await journey.request("/changePasswordInForceChangePassword");
    expect(page.status).toBe(200);
    await page.body?.cancel();
    const post = (newPassword: string) => journey.postForm("/changePasswordInForceChangePassword", { newPassword });
    const another = freshPassword();
    await emulator.leakPassword(another);
    await expectRefused(FORMS["forced new password"]!, await post(another), "password.leaked", another);
    const chosen = await post(freshPassword());
    const { foreign } = await journey.follow(chosen);
    expect(foreign?.searchParams.get("code")).toMatch(/.+/);
    expect(await marked(email)).toBe(false);
  });

  it("asks the second factor first: a stranger with the password alone reaches no new-password step and changes nothing", async () => {
    const email = unique("stranger");
    const listed = freshPassword();
    await emulator.leakPassword(listed);
    await emulator.seed({ email, password: listed, mfa: { totp: TOTP_SECRET } });
    const stranger = new Journey({ device: "new" });
    await (await reachLoginScreen(stranger, GUNGNIR, "signIn")).response.body?.cancel();
    const login = await stranger.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: email,
      password: listed,
    });
    expectRedirect(login, "/signIn/mfa");
    // The forced step is not this browser's to take: its POST is the parameter problem, and the account is unmarked.
    const early = await stranger.postForm("/changePasswordInForceChangePassword", { newPassword: freshPassword() });
    await expectModal(early, 400, "parameterError");
    expect(await marked(email)).toBe(false);
    // The owner's password still works (up to the second factor, where the stranger stopped too).
    const owner = new Journey();
    await (await reachLoginScreen(owner, GUNGNIR, "signIn")).response.body?.cancel();
    const again = await owner.postForm("/signIn", { client_id: GUNGNIR.clientId, username: email, password: listed });
    expectRedirect(again, "/signIn/mfa");
    // With the code, the owner is asked for the new password, last.
    const mfaCode = new TOTP({ secret: TOTP_SECRET }).generate();
    expectRedirect(await owner.postForm("/signIn/mfa", { mfaCode }), "/changePasswordInForceChangePassword");
    expect(await marked(email)).toBe(true);
  });

  it("is refused as any wrong password when it is not the account's, and marks nothing", async () => {
    const email = unique("wrong");
    const listed = freshPassword();
    await emulator.leakPassword(listed);
    const { login } = await signIn(email, freshPassword(), listed);
    await expectModal(login, 401, "loginFailed");
    expect(await marked(email)).toBe(false);
  });

  it("goes on to the app when the list does not answer in time, and the log says so", async () => {
    const email = unique("slowsignin");
    const listed = freshPassword();
    const prefix = await emulator.leakPassword(listed);
    await emulator.fault({ method: "GET", pathPattern: `/range/${prefix}`, delayMs: PAST_SHORT_TIMEOUT_MS });
    const { journey, login } = await signIn(email, listed, listed, DEPLOYED_BUDGET);
    const { foreign } = await journey.follow(login);
    expect(foreign?.searchParams.get("code")).toMatch(/.+/);
    expect(logLines()).toContainEqual(expect.objectContaining({ event: "password_check_skipped", reason: "timeout" }));
    expect(await marked(email)).toBe(false);
  });
});
