import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { GUNGNIR, TOTP_SECRET } from "../support/vocabulary";
import { contextOf, digestOf, finishLogin, loginFrom, seedWithDevices, tokensFrom } from "./deviceContext";
import {
  authorizeUrl,
  bearer,
  call,
  exchangeCode,
  follow,
  latestMail,
  login,
  pkcePair,
  postJson,
  refresh,
  resetEmulator,
  setClock,
  startLogin,
} from "./emulatorClient";

// docs/devices.md: the sign-in history, the devices and signing them out.

beforeEach(resetEmulator);

const email = "history@example.jp";
const laptop = digestOf("laptop");
const phone = digestOf("phone");
const tablet = digestOf("tablet");
const minute = 60_000;
const day = 24 * 60 * minute;

interface SignInRow {
  at: string;
  method: string;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  service_id: string | null;
  result: string;
  device_id: string | null;
  this_device: boolean;
}

interface DeviceRow {
  id: string;
  browser: string;
  os: string;
  country: string | null;
  region: string | null;
  first_used_at: string;
  last_used_at: string;
  signed_in: boolean;
  this_device: boolean;
}

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  const body = await response.json();
  expect({ status: response.status, body }).toMatchObject({ status, body: { type } });
}

function get(path: string, token: string, digest?: string): Promise<Response> {
  return call(path, { headers: { ...bearer(token), ...(digest === undefined ? {} : { "device-digest": digest }) } });
}

async function signIns(token: string, digest?: string): Promise<SignInRow[]> {
  const response = await get("/auth/v1/user/signins", token, digest);
  expect(response.status).toBe(200);
  return ((await response.json()) as { signins: SignInRow[] }).signins;
}

async function devices(token: string, digest?: string): Promise<DeviceRow[]> {
  const response = await get("/auth/v1/user/devices", token, digest);
  expect(response.status).toBe(200);
  return ((await response.json()) as { devices: DeviceRow[] }).devices;
}

function revoke(method: "POST" | "DELETE", path: string, token: string, digest?: string): Promise<Response> {
  const headers = { ...bearer(token), ...(digest === undefined ? {} : { "device-digest": digest }) };
  return call(path, { method, headers });
}

/** Whether an access token still opens the account. */
async function profileStatus(token: string): Promise<number> {
  return (await get("/auth/v1/user/profile", token)).status;
}

/**
 * A login from a device the account does not know, completed with the mailed code: its tokens. `context` undefined:
 * a login that names no device at all.
 */
async function confirmedFrom(device: string | undefined, context = device && contextOf(device)) {
  const { challenge, verifier } = await startLogin();
  const asked = (await (await login(challenge, email, undefined, undefined, { context })).json()) as {
    additional_flow: { session: string };
  };
  const confirmed = await postJson("/auth/v1/login", {
    login_challenge: challenge,
    flow: "device_confirmation",
    username: email,
    session: asked.additional_flow.session,
    code: (await latestMail(email)).code,
    context,
  });
  const { redirect_to } = (await confirmed.json()) as { redirect_to: string };
  return finishLogin(redirect_to, verifier);
}

describe("GET /auth/v1/user/signins", () => {
  it("lists successes and every kind of refusal, newest first, with where they came from", async () => {
    await seedWithDevices({ email, knownDevices: [laptop], mfa: { totp: TOTP_SECRET } });
    const step = (challenge: string, body: Record<string, unknown>) =>
      postJson("/auth/v1/login", { login_challenge: challenge, username: email, ...body });

    // 1. a wrong password from an unknown phone
    await loginFrom((await startLogin()).challenge, email, contextOf(phone), "Wrong-pass1!");
    // 2. a wrong TOTP code, 3. the right one (from the known laptop: accepted)
    const { challenge, verifier } = await startLogin({ client: GUNGNIR.clientId });
    const first = await loginFrom(challenge, email, contextOf(laptop));
    const { session } = ((await first.json()) as { additional_flow: { session: string } }).additional_flow;
    const code = new TOTP({ secret: TOTP_SECRET }).generate();
    await step(challenge, { flow: "mfa_totp", session, code: code === "000000" ? "111111" : "000000" });
    const accepted = await step(challenge, { flow: "mfa_totp", session, code });
    const { access_token: token } = await finishLogin(
      ((await accepted.json()) as { redirect_to: string }).redirect_to,
      verifier,
      { client: GUNGNIR.clientId },
    );
    // 4. the right password and code from the phone (in Osaka), then a wrong device code
    const osaka = contextOf(phone, { region: "Osaka" });
    const stopped = await startLogin();
    const asked = await loginFrom(stopped.challenge, email, osaka);
    const phoneSession = ((await asked.json()) as { additional_flow: { session: string } }).additional_flow.session;
    const at = await step(stopped.challenge, { flow: "mfa_totp", session: phoneSession, code, context: osaka });
    expect(at.status).toBe(201);
    const deviceSession = ((await at.json()) as { additional_flow: { session: string } }).additional_flow.session;
    const deviceCode = (await latestMail(email)).code;
    await step(stopped.challenge, {
      flow: "device_confirmation",
      session: deviceSession,
      code: deviceCode === "000000" ? "111111" : "000000",
      context: osaka,
    });
    // 5. a login without context is an unknown device's, with no place
    await postJson("/auth/v1/login", {
      login_challenge: (await startLogin()).challenge,
      flow: "email_password",
      username: email,
      password: "Wrong-pass1!",
    });

    const rows = await signIns(token, laptop);
    expect(rows.map(({ method, result, region }) => ({ method, result, region }))).toEqual([
      { method: "password", result: "refused", region: null },
      { method: "password_totp", result: "refused", region: "Osaka" },
      { method: "password_totp", result: "success", region: "Tokyo" },
      { method: "password_totp", result: "refused", region: "Tokyo" },
      { method: "password", result: "refused", region: "Tokyo" },
    ]);
    expect(rows[0]).toMatchObject({ browser: "その他", os: "その他", country: null, device_id: null });
    const [, , success, , wrongPassword] = rows;
    const [laptopDevice, ...others] = await devices(token);
    expect(others).toEqual([]);
    expect(success).toMatchObject({
      browser: "Chrome",
      os: "Windows",
      country: "JP",
      service_id: GUNGNIR.serviceId,
      device_id: laptopDevice?.id,
      this_device: true,
    });
    expect(wrongPassword).toMatchObject({ service_id: "client", device_id: null, this_device: false });
    expect(rows.map((row) => Date.parse(row.at))).toEqual(rows.map((row) => Date.parse(row.at)).sort((a, b) => b - a));
  });

  it("records a locked account's refusals, and the successes after a device confirmation", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    for (let count = 1; count <= 6; count += 1)
      await loginFrom((await startLogin()).challenge, email, contextOf(phone), "Wrong-pass1!");
    // Locked now: the right password is refused too.
    expect((await loginFrom((await startLogin()).challenge, email, contextOf(phone))).status).toBe(401);
    await setClock(minute);
    const { access_token: token } = await confirmedFrom(tablet);
    const rows = await signIns(token, tablet);
    expect(rows).toHaveLength(8);
    expect(rows[0]).toMatchObject({ method: "password", result: "success", this_device: true });
    expect(rows[0]?.device_id).toEqual(expect.any(String));
    expect(rows.slice(1).every((row) => row.result === "refused" && row.method === "password")).toBe(true);
  });

  it("keeps 90 days", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const signIn = async () => (await tokensFrom(email, contextOf(laptop))).access_token;
    await signIn();
    await setClock(90 * day - minute);
    expect(await signIns(await signIn())).toHaveLength(2);
    await setClock(90 * day + minute);
    const rows = await signIns(await signIn());
    // The first is 90 days and a minute old now: gone.
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => Date.parse(row.at) > Date.now() + 89 * day)).toBe(true);
  });

  it("needs a good bearer token with user.write, and a well-formed Device-Digest", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await expectProblem(await call("/auth/v1/user/signins"), 401, "unauthorized");
    await expectProblem(await call("/auth/v1/user/devices"), 401, "unauthorized");
    const { access_token: token } = await tokensFrom(email, contextOf(laptop));
    await expectProblem(await get("/auth/v1/user/signins", token, "not-a-digest"), 400, "invalid_request");
    await expectProblem(await get("/auth/v1/user/devices", token, "not-a-digest"), 400, "invalid_request");
  });
});

describe("GET /auth/v1/user/devices", () => {
  it("lists the devices that completed a sign-in, newest use first, which are signed in, and this one", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    await setClock(minute);
    const fromPhone = await confirmedFrom(phone, contextOf(phone, { browser: "Safari", os: "iOS", region: "Osaka" }));
    const list = await devices(fromPhone.access_token, phone);
    expect(list).toMatchObject([
      { browser: "Safari", os: "iOS", country: "JP", region: "Osaka", signed_in: true, this_device: true },
      { browser: "Chrome", os: "Windows", signed_in: false, this_device: false },
    ]);
    expect(Date.parse(list[0]?.first_used_at ?? "")).toBeGreaterThan(Date.parse(list[1]?.first_used_at ?? ""));
    expect(new Set(list.map((device) => device.id)).size).toBe(2);
    expect(JSON.stringify(list)).not.toContain(phone);
    // Without the header, no row is this device.
    expect((await devices(fromPhone.access_token)).some((device) => device.this_device)).toBe(false);
  });

  it("moves a device's last use and whereabouts on with each sign-in, and keeps its first use", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const [seeded] = await devices((await tokensFrom(email, contextOf(laptop))).access_token);
    await setClock(2 * minute);
    const { access_token: token } = await tokensFrom(email, contextOf(laptop, { region: "Kanagawa" }));
    const [moved] = await devices(token);
    expect(moved).toMatchObject({ id: seeded?.id, first_used_at: seeded?.first_used_at, region: "Kanagawa" });
    expect(Date.parse(moved?.last_used_at ?? "")).toBeGreaterThan(Date.parse(seeded?.last_used_at ?? ""));
  });
});

describe("signing devices out", () => {
  /** The account signed in on the laptop and on the phone: each device's tokens and session cookie. */
  async function twoDevices() {
    await seedWithDevices({ email, knownDevices: [laptop, phone] });
    const onLaptop = await tokensFrom(email, contextOf(laptop));
    const onPhone = await tokensFrom(email, contextOf(phone));
    const list = await devices(onLaptop.access_token, laptop);
    const idOf = (digest: string) => {
      const row = list.find((device) => device.this_device === (digest === laptop));
      if (row === undefined) throw new Error("device not listed");
      return row.id;
    };
    return { onLaptop, onPhone, laptopId: idOf(laptop), phoneId: idOf(phone) };
  }

  it("ends the device's sessions and tokens at once: 401, invalid_grant, a login again; other devices go on", async () => {
    const { onLaptop, onPhone, phoneId } = await twoDevices();
    expect(await profileStatus(onPhone.access_token)).toBe(200);
    const signedOut = await revoke("POST", `/auth/v1/user/devices/${phoneId}/signout`, onLaptop.access_token);
    expect(signedOut.status).toBe(204);
    expect(await signedOut.text()).toBe("");
    expect(await profileStatus(onPhone.access_token)).toBe(401);
    expect(await (await refresh(onPhone.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    // The phone's browser session no longer skips the login.
    const again = await call(authorizeUrl({ codeChallenge: (await pkcePair()).challenge }), {
      headers: { cookie: onPhone.cookie ?? "" },
    });
    expect(new URL(again.headers.get("location") ?? "").searchParams.get("login_challenge")).not.toBeNull();
    expect(await profileStatus(onLaptop.access_token)).toBe(200);
    expect((await refresh(onLaptop.refresh_token)).status).toBe(200);
    // Signed out is forgotten: gone from the list, and the phone's next sign-in is confirmed by a mailed code.
    const list = await devices(onLaptop.access_token, laptop);
    expect(list.map((device) => device.id)).toEqual([expect.any(String)]);
    expect(list.map((device) => device.id)).not.toContain(phoneId);
    const back = await loginFrom((await startLogin()).challenge, email, contextOf(phone));
    expect(await back.json()).toMatchObject({ additional_flow: { next: "device_confirmation" } });
  });

  it("revokes what a device's session had not yet exchanged: an authorization code", async () => {
    const { onLaptop, phoneId } = await twoDevices();
    const { challenge, verifier } = await startLogin();
    const pending = await loginFrom(challenge, email, contextOf(phone));
    const { redirect_to } = (await pending.json()) as { redirect_to: string };
    const { location } = await follow(redirect_to);
    await revoke("POST", `/auth/v1/user/devices/${phoneId}/signout`, onLaptop.access_token);
    const exchanged = await exchangeCode(location.searchParams.get("code") ?? "", verifier);
    expect(await exchanged.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("signs out every other device, and the sessions of logins that named none, but not this one", async () => {
    const { onLaptop, onPhone } = await twoDevices();
    const withoutContext = await confirmedFrom(undefined);
    await expectProblem(
      await revoke("POST", "/auth/v1/user/devices/signout-others", onLaptop.access_token),
      400,
      "invalid_request",
    );
    const response = await revoke("POST", "/auth/v1/user/devices/signout-others", onLaptop.access_token, laptop);
    expect(response.status).toBe(204);
    expect(await profileStatus(onPhone.access_token)).toBe(401);
    expect(await profileStatus(withoutContext.access_token)).toBe(401);
    expect((await refresh(withoutContext.refresh_token)).status).toBe(400);
    expect(await profileStatus(onLaptop.access_token)).toBe(200);
    expect((await refresh(onLaptop.refresh_token)).status).toBe(200);
    // The others are forgotten: the phone's next sign-in is confirmed again, the laptop's is not.
    expect((await devices(onLaptop.access_token, laptop)).map((device) => device.this_device)).toEqual([true]);
    const phoneAgain = await loginFrom((await startLogin()).challenge, email, contextOf(phone));
    expect(await phoneAgain.json()).toMatchObject({ additional_flow: { next: "device_confirmation" } });
    const laptopAgain = await loginFrom((await startLogin()).challenge, email, contextOf(laptop));
    expect(await laptopAgain.json()).toMatchObject({ redirect_to: expect.any(String) });
  });

  it("forgets a device: signed out, gone from the list, and its next sign-in is confirmed again", async () => {
    const { onLaptop, onPhone, phoneId } = await twoDevices();
    expect((await revoke("DELETE", `/auth/v1/user/devices/${phoneId}`, onLaptop.access_token)).status).toBe(204);
    expect(await profileStatus(onPhone.access_token)).toBe(401);
    expect((await devices(onLaptop.access_token)).map((device) => device.id)).not.toContain(phoneId);
    const again = await loginFrom((await startLogin()).challenge, email, contextOf(phone));
    expect(await again.json()).toMatchObject({ additional_flow: { next: "device_confirmation" } });
    await expectProblem(
      await revoke("DELETE", `/auth/v1/user/devices/${phoneId}`, onLaptop.access_token),
      404,
      "not_found",
    );
  });

  it("needs a sign-in within the last 5 minutes: a refresh does not renew it", async () => {
    const { onLaptop, phoneId } = await twoDevices();
    await setClock(5 * minute + 1000);
    const refreshed = (await (await refresh(onLaptop.refresh_token)).json()) as { access_token: string };
    for (const [method, path, digest] of [
      ["POST", `/auth/v1/user/devices/${phoneId}/signout`, undefined],
      ["POST", "/auth/v1/user/devices/signout-others", laptop],
      ["DELETE", `/auth/v1/user/devices/${phoneId}`, undefined],
    ] as const) {
      await expectProblem(await revoke(method, path, refreshed.access_token, digest), 403, "reauthentication_required");
    }
    expect((await devices(refreshed.access_token)).every((device) => device.signed_in)).toBe(true);
  });

  it("answers 404 not_found for another account's device, and leaves it alone", async () => {
    const { onPhone, phoneId } = await twoDevices();
    const other = "other@example.jp";
    await seedWithDevices({ email: other, knownDevices: [laptop] });
    const stranger = (await tokensFrom(other, contextOf(laptop))).access_token;
    for (const [method, path] of [
      ["POST", `/auth/v1/user/devices/${phoneId}/signout`],
      ["DELETE", `/auth/v1/user/devices/${phoneId}`],
      ["POST", "/auth/v1/user/devices/no-such-device/signout"],
    ] as const) {
      await expectProblem(await revoke(method, path, stranger), 404, "not_found");
    }
    expect(await profileStatus(onPhone.access_token)).toBe(200);
  });
});
