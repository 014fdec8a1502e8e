import { beforeEach, describe, expect, it, vi } from "vitest";
import { modals } from "../../messages/modals";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
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
  withPlatformRateLimits,
} from "./helpers";
import { Journey, reachLoginScreen } from "./journey";
import { rateLimitClock } from "./rateLimits";

// architecture §8: every credential, code and mail-sending POST is counted per client IP and
// per subject, and every other route per IP. Over a limit the site answers 429 with Retry-After on the page's
// own layout (the form again, with what was typed), before the upstream is asked. The requests count on the fake
// bindings, whose window moves only with `rateLimitClock` (test/worker/rateLimits.ts): each limit is reached at
// exactly its count, and the clock moved past the period lets the next attempt through. One test counts on
// workerd's own binding, its clock held by the test.

const TOO_MANY = modals.tooManyAttempts.title;
// The workerd tests lower the code class's per-IP limit too (test/worker/vitest.config.ts).
const TEST_CODE_IP_LIMIT = 20;

beforeEach(async () => {
  await emulator.reset();
});

/**
 * Posts the same form limit + 1 times, each time from the given address; answers the statuses and the last answer,
 * which must be the only 429. `again` posts it once more (the form of attempt `limit + 1`), for after the period.
 */
async function repeat(
  journey: Journey,
  path: string,
  form: (n: number) => Record<string, string>,
  limit: number,
  ip: () => string,
) {
  const post = (n: number) => journey.request(path, formPost(form(n), { "CF-Connecting-IP": ip() }));
  const statuses: number[] = [];
  for (let n = 0; n < limit; n++) {
    const response = await post(n);
    statuses.push(response.status);
    await response.body?.cancel();
  }
  const refused = await post(limit);
  statuses.push(refused.status);
  expect(statuses.slice(0, limit)).not.toContain(429);
  expect(refused.status, `attempt ${limit + 1} of ${statuses.join(", ")}`).toBe(429);
  return { statuses, refused, again: () => post(limit + 1) };
}

async function expectTooMany(response: Response, formAction: string) {
  expect(response.status).toBe(429);
  expect(response.headers.get("Retry-After")).toBe("60");
  const html = await response.text();
  expect(html).toContain(TOO_MANY);
  expect(html).toContain(`action="${formAction}"`);
  return html;
}

describe("rate limits (architecture §8)", () => {
  it("credential, per subject: the sixth password for one login ID in a minute gets 429, from any address", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const wrong = () => ({ username: " Target.User@Example.com ", password: "Wr0ngPassword!" });
    const { statuses, refused, again } = await repeat(journey, "/signIn", wrong, 5, clientIp);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    const html = await expectTooMany(refused, "/signIn");
    expect(html).toContain('value=" Target.User@Example.com "');
    // Past the period the login ID's next try reaches the upstream again.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await again();
    expect(later.status).toBe(401);
    await later.body?.cancel();
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
    const { statuses, refused, again } = await repeat(
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
    // Past the period the right password reaches the upstream again, whose own lockout now answers it as a wrong one.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await again();
    expect(later.status).toBe(401);
    await later.body?.cancel();
  });

  it("credential, per IP: one address trying many login IDs gets 429 after 60 in a minute", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const address = clientIp();
    const form = (n: number) => ({ username: `spray${n}@example.com`, password: "Wr0ngPassword!" });
    const { refused, again } = await repeat(journey, "/signIn", form, 60, () => address);
    await expectTooMany(refused, "/signIn");
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await again();
    expect(later.status).toBe(401);
    await later.body?.cancel();
  });

  it("code, per subject: the sixth code on one second-factor session gets 429", async () => {
    await emulator.seed({ email: "mfa.limit@example.com", mfa: { totp: TOTP_SECRET } });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    expect((await journey.postForm("/signIn", { username: "mfa.limit@example.com", password: PASSWORD })).status).toBe(
      303,
    );
    const wrongCode = () =>
      journey.request("/signIn/mfa", formPost({ mfaCode: "000000" }, { "CF-Connecting-IP": clientIp() }));
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await wrongCode();
      await response.body?.cancel();
      expect(response.status, `wrong code ${attempt}`).toBe(401);
    }
    await expectTooMany(await wrongCode(), "/signIn/mfa");
    // Past the period the next code reaches the emulator, which ended the session at its fifth wrong code
    // (maxWrongCodes): the session is over.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await wrongCode();
    expect(later.status, "a code past the emulator's cap").toBe(modals.retry.status);
    expect(await later.text()).toContain(modals.retry.title);
  });

  it("mail, per subject: the fourth sign-up attempt for one address in a minute gets 429", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signUp");
    // An address no other test uses: the per-subject count is the project's, across files.
    const email = `signup.flood.${crypto.randomUUID()}@example.com`;
    const flood = () => ({ email });
    const { statuses, refused, again } = await repeat(journey, "/signUp/checkEmail", flood, 3, clientIp);
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    await expectTooMany(refused, "/signUp/checkEmail");
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await again();
    expect(later.status).toBe(303);
    await later.body?.cancel();
  });

  it("read, per IP, on workerd's own binding: one address gets 429 after its limit of pages in a minute, with the error page's layout", async () => {
    // The one test that counts on the platform's binding (the project's RL_READ_BY_IP), end to end. It counts in
    // windows of the isolate's clock (Date.now() in miniflare's ratelimit.worker), which vitest's fake Date holds
    // still here, so the flood cannot straddle a window's end however slow the machine; moving it on a period starts
    // the next window. Were the binding ever to count by another clock, the last request would get 429: a failure,
    // never a pass that proves nothing.
    const address = clientIp();
    const page = () => get("/error", [], { "CF-Connecting-IP": address }, withPlatformRateLimits());
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const statuses: number[] = [];
      for (let n = 0; n < TEST_READ_LIMIT; n++) {
        const response = await page();
        statuses.push(response.status);
        await response.body?.cancel();
      }
      expect(statuses).not.toContain(429);
      const refused = await page();
      expect(refused.status, `page ${TEST_READ_LIMIT + 1}`).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("60");
      expect(await refused.text()).toContain(TOO_MANY);
      vi.setSystemTime(Date.now() + RETRY_AFTER_SECONDS * 1000);
      const later = await page();
      expect(later.status, "a page in the next window").toBe(statuses[0]);
      await later.body?.cancel();
    } finally {
      vi.useRealTimers();
    }
  });

  it("the proxy's OAuth2 calls, per IP: JSON 429 after their limit in a minute", async () => {
    const address = clientIp();
    const statuses: number[] = [];
    for (let n = 0; n < TEST_CODE_IP_LIMIT; n++) {
      const response = await journeyToken(address);
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses).not.toContain(429);
    const refused = await journeyToken(address);
    expect(refused.status, `call ${TEST_CODE_IP_LIMIT + 1}`).toBe(429);
    expect(await refused.json()).toMatchObject({ type: "too_many_requests" });
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const later = await journeyToken(address);
    expect(later.status).toBe(statuses[0]);
    await later.body?.cancel();
  });
});

function journeyToken(address: string): Promise<Response> {
  return new Journey().request("/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": address },
    body: "grant_type=authorization_code&code=guess",
  });
}
