import { describe, expect, it } from "vitest";
import { screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import { appStart } from "../support/appStart";
import { expectModal } from "../support/expectations";
import { formPost } from "../support/forms";
import type { RequestOptionsJSON } from "../support/softAuthenticator";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN, type SiteFetchOptions } from "./helpers";
import { customerWithPasskey, Journey, reachLoginScreen } from "./journey";
import { rateLimitClock } from "./rateLimits";

// docs/passkeys.md: signing in with a passkey alone, bound to this browser's login challenge, with real
// WebAuthn responses from a software authenticator on the site's origin.

const _unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;

/** A user with a passkey (journey.ts): its address and authenticator. */
const userWithPasskey = () => customerWithPasskey("passkey.user");

/** The island's request for the ceremony: a same-origin fetch of this browser. */
function askOptions(
  journey: Journey,
  site: "same-origin" | "cross-site" = "same-origin",
  options?: SiteFetchOptions,
): Promise<Response> {
  return journey.request("/signIn/passkey/options", { ...formPost({}), headers: { "Sec-Fetch-Site": site } }, options);
}

async function optionsFor(journey: Journey): Promise<RequestOptionsJSON> {
  const response = await askOptions(journey);
  expect(response.status).toBe(200);
  const { publicKey } = (await response.json()) as { publicKey: RequestOptionsJSON & Record<string, unknown> };
  return publicKey;
}

async function atSignIn(): Promise<Journey> {
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, GUNGNIR, "signIn");
  await response.body?.cancel();
  return journey;
}

/** The app asks for a fresh phishing-resistant login (docs/passkeys.md, "Step-up"); answers the sign-in page. */
async function atStepUp(journey: Journey): Promise<string> {
  const start = await appStart(GUNGNIR, "extSignIn", { acr_values: "phr", prompt: "login" });
  const { response } = await journey.follow(await journey.request(start.path));
  expect(response.status).toBe(200);
  return response.text();
}

describe("passkey sign-in (docs/passkeys.md)", () => {
  it("signs in with the passkey alone: no password, no code, and the app gets its code", async () => {
    const { authenticator } = await userWithPasskey();
    const journey = await atSignIn();
    const publicKey = await optionsFor(journey);
    // The same options for everyone: no account, no credential named, user verification required.
    expect(publicKey).toMatchObject({
      rpId: new URL(ORIGIN).hostname,
      allowCredentials: [],
      userVerification: "required",
    });
    expect(publicKey).not.toHaveProperty("session");
    const credential = await authenticator.authenticate(publicKey);
    const signedIn = await journey.postForm("/signIn/passkey", { credential: JSON.stringify(credential) });
    expect(signedIn.status).toBe(303);
    const { foreign } = await journey.follow(signedIn);
    expect(foreign?.origin).toBe(`https://app.${GUNGNIR.serviceId}.example`);
    expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);
  });

  it("uses a ceremony once: the same signed credential posted again is refused", async () => {
    const { authenticator } = await userWithPasskey();
    const journey = await atSignIn();
    const credential = JSON.stringify(await authenticator.authenticate(await optionsFor(journey)));
    const stolen = await atSignIn();
    await optionsFor(stolen);
    // Another browser with its own ceremony cannot use this one's signature.
    const elsewhere = await stolen.postForm("/signIn/passkey", { credential });
    expect(elsewhere.status).toBe(modals.passkeyFailed.status);
    expect(await elsewhere.text()).toContain(modals.passkeyFailed.title);
    // Nor can the first browser use it twice: its ceremony ended with the first try.
    expect((await journey.postForm("/signIn/passkey", { credential })).status).toBe(303);
    const again = await journey.postForm("/signIn/passkey", { credential });
    // The sign-in state went with the first try: the step is gone, not merely refused.
    await expectModal(again, 400, "parameterError");
  });

  it("refuses a passkey signed for another origin (a phishing site's page)", async () => {
    const { authenticator } = await userWithPasskey();
    const journey = await atSignIn();
    const phished = await authenticator.authenticate(await optionsFor(journey), {
      origin: "https://signin-test.example",
    });
    const response = await journey.postForm("/signIn/passkey", { credential: JSON.stringify(phished) });
    expect(response.status).toBe(modals.passkeyFailed.status);
    const html = await response.text();
    expect(html).toContain(modals.passkeyFailed.title);
    expect(html).toContain('action="/signIn"');
  });

  it("refuses a cloned authenticator (its counter went back) and says the passkey is suspended", async () => {
    const { authenticator } = await userWithPasskey();
    const clone = authenticator.clone();
    const first = await atSignIn();
    const signed = await authenticator.authenticate(await optionsFor(first));
    expect((await first.postForm("/signIn/passkey", { credential: JSON.stringify(signed) })).status).toBe(303);
    const second = await atSignIn();
    const cloned = await clone.authenticate(await optionsFor(second));
    const response = await second.postForm("/signIn/passkey", { credential: JSON.stringify(cloned) });
    expect(response.status).toBe(modals.passkeySuspended.status);
    expect(await response.text()).toContain(modals.passkeySuspended.title);
  });

  it("starts no ceremony for a page of another site, or without a sign-in in this browser", async () => {
    const journey = await atSignIn();
    expect((await askOptions(journey, "cross-site")).status).toBe(403);
    expect((await askOptions(new Journey())).status).toBe(404);
  });

  it("makes no passkey call and offers no ceremony while the environment's switch is off", async () => {
    const off: SiteFetchOptions = { env: { PASSKEYS: "off" } };
    const journey = await atSignIn();
    expect((await askOptions(journey, "same-origin", off)).status).toBe(404);
    const { authenticator } = await userWithPasskey();
    const credential = JSON.stringify(await authenticator.authenticate(await optionsFor(journey)));
    const refused = await journey.request("/signIn/passkey", formPost({ credential }), off);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(modals.parameterError.title);
  });

  it("counts failed passkey tries per credential: the sixth for one passkey gets 429, from any browser", async () => {
    const { authenticator } = await userWithPasskey();
    const wrongTry = async () => {
      const journey = await atSignIn();
      const wrong = await authenticator.authenticate(await optionsFor(journey), { origin: "https://evil.example" });
      const response = await journey.postForm("/signIn/passkey", { credential: JSON.stringify(wrong) });
      await response.body?.cancel();
      return response.status;
    };
    // The rate limits count on the test's clock (docs/testing.md): the sixth, exactly.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) statuses.push(await wrongTry());
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(modals.passkeyFailed.status));
    expect(statuses.at(-1)).toBe(429);
    // Past the period the passkey's next try is judged again.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    expect(await wrongTry()).toBe(modals.passkeyFailed.status);
  });

  it("with acr_values=phr, only a passkey completes the login: no password form, and a password is refused unasked", async () => {
    const { email, authenticator } = await userWithPasskey();
    const journey = new Journey();
    const page = await atStepUp(journey);
    expect(page).toContain("パスキーでのログインが必要です");
    expect(page).not.toContain('action="/signIn"');
    expect(page).toContain('action="/signIn/passkey"');
    // A user without a passkey is told so plainly, and where to get one.
    expect(page).toContain("パスキーをお持ちでない方は、このお手続きに進めません");
    // Only what a signed-in customer needs: the support contact and the way back, no sign-up, reset or ID help.
    for (const astray of ['href="/signUp/checkEmail"', 'href="/resetPassword', screens.signIn.toSignUp, "whatIsId"])
      expect(page).not.toContain(astray);
    expect(page).toContain('href="#support-modal"');
    // A password posted anyway (an old tab, a script) never reaches the upstream: a password login never claims phr.
    const password = await journey.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: email,
      password: PASSWORD,
    });
    expect(password.status).toBe(modals.passkeyRequired.status);
    expect(await password.text()).toContain(modals.passkeyRequired.title);
    const credential = await authenticator.authenticate(await optionsFor(journey));
    const signedIn = await journey.postForm("/signIn/passkey", { credential: JSON.stringify(credential) });
    expect(signedIn.status).toBe(303);
    const { foreign } = await journey.follow(signedIn);
    expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);
  });

  it("without acr_values, the password form stays beside the passkey", async () => {
    const journey = await atSignIn();
    const page = await (await journey.request("/signIn")).text();
    expect(page).toContain('action="/signIn"');
    expect(page).toContain('action="/signIn/passkey"');
    expect(page).not.toContain("パスキーでのログインが必要です");
  });

  it("answers an upstream that fails with its modal, never a 500, and keeps the sign-in for another try", async () => {
    const { authenticator } = await userWithPasskey();
    const journey = await atSignIn();
    await emulator.fault({ pathPattern: "/auth/v1/passkeys/assertion/options", status: 500 });
    expect((await askOptions(journey)).status).toBe(502);
    await emulator.fault({ pathPattern: "/auth/v1/passkeys/assertion/options", drop: true });
    expect((await askOptions(journey)).status).toBe(502);
    const credential = JSON.stringify(await authenticator.authenticate(await optionsFor(journey)));
    await emulator.fault({ pathPattern: "/auth/v1/passkeys/assertion/result", drop: true });
    const dropped = await journey.postForm("/signIn/passkey", { credential });
    expect(dropped.status).toBe(modals.unexpectedError.status);
    expect(await dropped.text()).toContain(modals.unexpectedError.title);
    await emulator.fault({
      pathPattern: "/auth/v1/passkeys/assertion/result",
      status: 503,
      body: { type: "maintenance" },
    });
    const again = JSON.stringify(await authenticator.authenticate(await optionsFor(journey)));
    const maintenance = await journey.postForm("/signIn/passkey", { credential: again });
    expect(maintenance.status).toBe(modals.maintenance.status);
    // The sign-in itself survives: new options, a new signature, and the app gets its code.
    const fresh = JSON.stringify(await authenticator.authenticate(await optionsFor(journey)));
    const signedIn = await journey.postForm("/signIn/passkey", { credential: fresh });
    expect(signedIn.status).toBe(303);
  });

  it("refuses what is not a credential with the field's message, never a 500", async () => {
    const journey = await atSignIn();
    await optionsFor(journey);
    for (const credential of ["", "{", "[]", '{"id":"x"}', JSON.stringify({ id: "a", rawId: "a", type: "x" })]) {
      const response = await journey.postForm("/signIn/passkey", { credential });
      expect(response.status, credential).toBe(422);
    }
  });
});
