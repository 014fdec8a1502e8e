import { beforeEach, describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { sampleClientIds } from "../../themes/data/clients";
import { formPost } from "../support/forms";
import { clientIp, emulator, get } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// ARCHITECTURE §8 / issue 9 finding 1: every credential, code and mail-sending POST is counted per client IP and
// per subject, and every other route per IP. Over a limit the site answers 429 with Retry-After on the page's
// own layout (the form again, with what was typed), before the upstream is asked.

const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const TOO_MANY = modals.tooManyAttempts.title;

beforeEach(async () => {
  await emulator.reset();
});

/** Posts the same form again and again, each time from the given address; answers the statuses. */
async function repeat(
  journey: Journey,
  path: string,
  form: (n: number) => Record<string, string>,
  times: number,
  ip: () => string,
) {
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let n = 0; n < times; n++) {
    last = await journey.request(path, formPost(form(n), { "CF-Connecting-IP": ip() }));
    statuses.push(last.status);
  }
  return { statuses, last: last as Response };
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
    const { statuses, last } = await repeat(journey, "/signIn", wrong, 6, clientIp);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    const html = await expectTooMany(last, "/signIn");
    expect(html).toContain('value=" Target.User@Example.com "');
    // The same login ID however it is typed is the same subject; another login ID is not limited.
    const other = await journey.postForm("/signIn", {
      username: "someone.else@example.com",
      password: "Wr0ngPassword!",
    });
    expect(other.status).toBe(401);
  });

  it("credential, per IP: one address trying many login IDs gets 429 after 60 in a minute", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    const address = clientIp();
    const form = (n: number) => ({ username: `spray${n}@example.com`, password: "Wr0ngPassword!" });
    const { statuses, last } = await repeat(journey, "/signIn", form, 61, () => address);
    expect(statuses.filter((status) => status === 401)).toHaveLength(60);
    await expectTooMany(last, "/signIn");
  });

  it("code, per subject: the sixth code on one second-factor session gets 429", async () => {
    await emulator.seed({ email: "mfa.limit@example.com", mfa: { totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" } });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    expect(
      (await journey.postForm("/signIn", { username: "mfa.limit@example.com", password: "Passw0rd!" })).status,
    ).toBe(303);
    const { statuses, last } = await repeat(journey, "/signIn/mfa", () => ({ mfaCode: "000000" }), 6, clientIp);
    expect(statuses.slice(0, 5).every((status) => status !== 429)).toBe(true);
    await expectTooMany(last, "/signIn/mfa");
  });

  it("mail, per subject: the fourth sign-up attempt for one address in a minute gets 429", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signUp");
    const { statuses, last } = await repeat(
      journey,
      "/signUp/checkEmail",
      () => ({ email: "flood@example.com" }),
      4,
      clientIp,
    );
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    await expectTooMany(last, "/signUp/checkEmail");
  });

  it("read, per IP: one address gets 429 on its 601st page in a minute, with the error page's layout", {
    timeout: 60_000,
  }, async () => {
    const address = clientIp();
    const statuses: number[] = [];
    for (let n = 0; n < 601; n++) statuses.push((await get("/error", [], { "CF-Connecting-IP": address })).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(600);
    const refused = await get("/error", [], { "CF-Connecting-IP": address });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(await refused.text()).toContain(TOO_MANY);
  });

  it("the proxy's token endpoint, per IP: JSON 429 after 60 calls in a minute", { timeout: 60_000 }, async () => {
    const address = clientIp();
    let last: Response | undefined;
    for (let n = 0; n < 61; n++) {
      last = await journeyToken(address);
    }
    expect(last?.status).toBe(429);
    expect(await last?.json()).toMatchObject({ type: "too_many_requests" });
  });
});

function journeyToken(address: string): Promise<Response> {
  return new Journey().request("/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": address },
    body: "grant_type=authorization_code&code=guess",
  });
}
