import { beforeEach, describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { expectModal } from "../support/expectations";
import { formPost } from "../support/forms";
import { GUNGNIR, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import {
  clientIp,
  emulator,
  get,
  PAST_SHORT_TIMEOUT_MS,
  SHORT_TIMEOUT,
  type SiteFetchOptions,
  TEST_READ_LIMIT,
} from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// ARCHITECTURE §8: every credential, code and mail-sending POST is counted per client IP and
// per subject, and every other route per IP. Over a limit the site answers 429 with Retry-After on the page's
// own layout (the form again, with what was typed), before the upstream is asked.

const TOO_MANY = modals.tooManyAttempts.title;
// The workerd tests lower the code class's per-IP limit too (test/worker/vitest.config.ts).
const TEST_CODE_IP_LIMIT = 20;

beforeEach(async () => {
  await emulator.reset();
});

/**
 * Posts the same form again and again (2 × limit + 1 times), each time from the given address; answers the
 * statuses and the first 429. The binding counts in fixed windows, so a run may straddle two: then the first
 * `limit` attempts still pass and one window still goes over.
 */
async function repeat(
  journey: Journey,
  path: string,
  form: (n: number) => Record<string, string>,
  limit: number,
  ip: () => string,
) {
  const statuses: number[] = [];
  let refused: Response | undefined;
  for (let n = 0; n < 2 * limit + 1 && !refused; n++) {
    const response = await journey.request(path, formPost(form(n), { "CF-Connecting-IP": ip() }));
    statuses.push(response.status);
    if (response.status === 429) refused = response;
    else await response.body?.cancel();
  }
  expect(statuses.slice(0, limit)).not.toContain(429);
  expect(refused, `no 429 within ${2 * limit + 1} attempts`).toBeDefined();
  return { statuses, refused: refused as Response };
}

async function expectTooMany(response: Response, formAction: string) {
  expect(response.status).toBe(429);
  expect(response.headers.get("Retry-After")).toBe("60");
  const html = await response.text();
  expect(html).toContain(TOO_MANY);
  expect(html).toContain(`action="${formAction}"`);
  return html;
}

describe("rate limits (ARCHITECTURE §8)", () => {
  it("credential, per subject: the sixth password for one login ID in a minute gets 429, from any address", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const wrong = () => ({ username: " Target.User@Example.com ", password: "Wr0ngPassword!" });
    const { statuses, refused } = await repeat(journey, "/signIn", wrong, 5, clientIp);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    const html = await expectTooMany(refused, "/signIn");
    expect(html).toContain('value=" Target.User@Example.com "');
    // The same login ID however it is typed is the same subject; another login ID is not limited.
    const other = await journey.postForm("/signIn", {
      username: "someone.else@example.com",
      password: "Wr0ngPassword!",
    });
    expect(other.status).toBe(401);
  });

  it("credential, per subject: an upstream failure is not counted, so the user's right password still gets in", async () => {
    // Five upstream errors in a row must not turn the user's next, correct sign-in into a 429: a 500, a time-out
    // and a dropped connection are the upstream's failures, not guesses.
    const email = "unlucky.user@example.com";
    await emulator.seed({ email });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const address = clientIp();
    const signIn = (options?: SiteFetchOptions) =>
      journey.request(
        "/signIn",
        formPost({ username: email, password: PASSWORD }, { "CF-Connecting-IP": address }),
        options,
      );
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 500, times: 4 });
    for (let n = 0; n < 4; n++) expect((await signIn()).status).toBe(modals.unexpectedError.status);
    await emulator.fault({ pathPattern: "/auth/v1/login", drop: true });
    expect((await signIn()).status).toBe(modals.unexpectedError.status);
    await emulator.fault({ pathPattern: "/auth/v1/login", delayMs: PAST_SHORT_TIMEOUT_MS });
    expect((await signIn(SHORT_TIMEOUT)).status).toBe(504);
    const accepted = await signIn();
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("Location")).not.toContain("/signIn");
  });

  it("credential, per subject: over the limit, the answer is 429 whatever the upstream said, and keeps nothing of it", async () => {
    // The sixth try is counted once the upstream has judged it: the right password then gets the same 429 as a wrong
    // one, with no cookie of the sign-in it would have started, so a guesser learns nothing from it.
    const email = "guessed.user@example.com";
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const { statuses, refused } = await repeat(
      journey,
      "/signIn",
      (n) => ({ username: email, password: n < 5 ? "Wr0ngPassword!" : PASSWORD }),
      5,
      clientIp,
    );
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    await expectTooMany(refused, "/signIn");
    expect(refused.headers.getSetCookie()).toEqual([]);
    const mfa = await journey.request("/signIn/mfa");
    // Nothing of the refused try was kept: there is no second step to go on to.
    await expectModal(mfa, 400, "parameterError");
  });

  it("credential, per IP: one address trying many login IDs gets 429 after 60 in a minute", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const address = clientIp();
    const form = (n: number) => ({ username: `spray${n}@example.com`, password: "Wr0ngPassword!" });
    const { refused } = await repeat(journey, "/signIn", form, 60, () => address);
    await expectTooMany(refused, "/signIn");
  });

  it("code, per subject: the sixth code on one second-factor session gets 429", async () => {
    await emulator.seed({ email: "mfa.limit@example.com", mfa: { totp: TOTP_SECRET } });
    // The emulator ends a session at its fifth wrong code (maxWrongCodes): when a window boundary splits the six
    // codes, the sixth reaches it and the session is over (409). The next session's six codes are in one window.
    for (let session = 1; session <= 2; session++) {
      const journey = new Journey();
      await reachLoginScreen(journey, GUNGNIR, "signIn");
      expect(
        (await journey.postForm("/signIn", { username: "mfa.limit@example.com", password: PASSWORD })).status,
      ).toBe(303);
      const wrongCode = () =>
        journey.request("/signIn/mfa", formPost({ mfaCode: "000000" }, { "CF-Connecting-IP": clientIp() }));
      for (let attempt = 1; attempt <= 5; attempt++) {
        const response = await wrongCode();
        await response.body?.cancel();
        expect(response.status, `wrong code ${attempt}`).toBe(401);
      }
      const sixth = await wrongCode();
      if (sixth.status === 429) {
        await expectTooMany(sixth, "/signIn/mfa");
        return;
      }
      expect(sixth.status, "the sixth code, past the emulator's cap").toBe(modals.retry.status);
      expect(await sixth.text()).toContain(modals.retry.title);
    }
    throw new Error("two sessions' six codes were both split by a window boundary");
  });

  it("mail, per subject: the fourth sign-up attempt for one address in a minute gets 429", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signUp");
    // An address no other test uses: the per-subject count is the project's, across files.
    const email = `signup.flood.${crypto.randomUUID()}@example.com`;
    const flood = () => ({ email });
    const { statuses, refused } = await repeat(journey, "/signUp/checkEmail", flood, 3, clientIp);
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    await expectTooMany(refused, "/signUp/checkEmail");
  });

  it("read, per IP: one address gets 429 after its limit of pages in a minute, with the error page's layout", async () => {
    const address = clientIp();
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let n = 0; n < 2 * TEST_READ_LIMIT + 1 && !refused; n++) {
      const response = await get("/error", [], { "CF-Connecting-IP": address });
      statuses.push(response.status);
      if (response.status === 429) refused = response;
      else await response.body?.cancel();
    }
    expect(statuses.slice(0, TEST_READ_LIMIT)).not.toContain(429);
    expect(refused?.headers.get("Retry-After")).toBe("60");
    expect(await refused?.text()).toContain(TOO_MANY);
  });

  it("the proxy's OAuth2 calls, per IP: JSON 429 after their limit in a minute", async () => {
    const address = clientIp();
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let n = 0; n < 2 * TEST_CODE_IP_LIMIT + 1 && !refused; n++) {
      const response = await journeyToken(address);
      statuses.push(response.status);
      if (response.status === 429) refused = response;
    }
    expect(statuses.slice(0, TEST_CODE_IP_LIMIT)).not.toContain(429);
    expect(await refused?.json()).toMatchObject({ type: "too_many_requests" });
  });
});

function journeyToken(address: string): Promise<Response> {
  return new Journey().request("/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": address },
    body: "grant_type=authorization_code&code=guess",
  });
}
