import { beforeEach, describe, expect, it } from "vitest";
import { type CreationOptionsJSON, type RequestOptionsJSON, SoftAuthenticator } from "../support/softAuthenticator";
import { ASTRA, GUNGNIR } from "../support/vocabulary";
import { contextOf, digestOf, seedWithDevices, tokensFrom } from "./deviceContext";
import { bearer, call, latestMail, login, outbox, postJson, resetEmulator, site, startLogin } from "./emulatorClient";
import { expectNotice } from "./noticeExpectations";

// docs/devices.md, "Notices": a passkey added, removed or suspended is noticed as every change is: the brand, the
// time in Japan, the method, the device and the place, and no URL; the passkey's name is quoted plain.

beforeEach(resetEmulator);

const email = "passkey-notices@example.jp";
const laptop = digestOf("laptop");
const phone = digestOf("phone");
const base = "/auth/v1/passkeys";
const scope = "openid user.write";

/** Up to 64 characters of what someone typed: a domain, a bidi override (U+202E), a phone number, a URL. */
const hostileName = "evil.example \u202E+81 90-1234-5678 https://x.test";
/** What a notice may quote of it: letters, digits, spaces, hyphens (docs/devices.md, "Notices"). */
const plainName = "evil example 81 90-1234-5678 https x test";

function passkeyCall(method: string, path: string, authorization: string, body?: unknown): Promise<Response> {
  const headers = { authorization };
  return body === undefined
    ? call(`${base}${path}`, { method, headers })
    : postJson(`${base}${path}`, body, { method, headers });
}

async function ok<T>(response: Response, status: number): Promise<T> {
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** Registers a passkey named `name` on `authorization` (a password sign-in's: a mailed code first). */
async function register(
  authorization: string,
  name?: string,
): Promise<{ authenticator: SoftAuthenticator; id: string }> {
  await ok(await passkeyCall("POST", "/registration/code", authorization), 201);
  const { code } = await latestMail(email);
  const { session, ...creation } = await ok<CreationOptionsJSON & { session: string }>(
    await passkeyCall("POST", "/attestation/options", authorization, { email_code: code }),
    200,
  );
  const authenticator = new SoftAuthenticator({ origin: site });
  const credential = await authenticator.register(creation);
  const { credential: listed } = await ok<{ credential: { id: string } }>(
    await passkeyCall("POST", "/attestation/result", authorization, {
      session,
      ...(name === undefined ? {} : { name }),
      ...credential,
    }),
    201,
  );
  return { authenticator, id: listed.id };
}

/** A password sign-in through GUNGNIR from the account's known laptop (Chrome, Windows, Tokyo): its bearer. */
async function signedInOnLaptop(): Promise<string> {
  await seedWithDevices({ email, knownDevices: [laptop] });
  const { access_token } = await tokensFrom(email, contextOf(laptop), { client: GUNGNIR.clientId, scope });
  return bearer(access_token).authorization ?? "";
}

/** A passkey sign-in attempt through `client`, with `context` when given: the assertion result's response. */
async function passkeyAttempt(
  authenticator: SoftAuthenticator,
  client: string,
  context?: ReturnType<typeof contextOf>,
): Promise<Response> {
  const { challenge } = await startLogin({ client, scope });
  const { session, ...request } = await ok<RequestOptionsJSON & { session: string }>(
    await postJson(`${base}/assertion/options`, { login_challenge: challenge }),
    200,
  );
  return postJson(`${base}/assertion/result`, {
    login_challenge: challenge,
    session,
    ...(context === undefined ? {} : { context }),
    ...(await authenticator.authenticate(request)),
  });
}

/** A passkey added through GUNGNIR from the known laptop, as its notice names it. */
const addedOnLaptop = {
  title: "パスキーが登録されました",
  serviceId: GUNGNIR.serviceId,
  method: "ログイン中の設定変更",
  device: "Chrome（Windows）",
  place: "日本 Tokyo",
};

describe("passkey notices", () => {
  it("tells of a passkey added, with the brand, time, device and place, and its name quoted plain", async () => {
    const authorization = await signedInOnLaptop();
    await register(authorization, hostileName);
    const mail = expectNotice(await latestMail(email), addedOnLaptop);
    expect(mail.text).toContain(`パスキー「${plainName}」が登録されました`);
    expect(mail.text).toContain("このパスキーを削除");
    for (const character of [".", "/", ":", "+"]) expect(mail.text.split("\n")[0]).not.toContain(character);
  });

  it("tells of a passkey removed, as the change it is, and quotes a name that filters to nothing as none", async () => {
    const authorization = await signedInOnLaptop();
    const { id } = await register(authorization, hostileName);
    const removed = await passkeyCall("DELETE", `/${id}`, authorization);
    expect(removed.status).toBe(200);
    const mail = expectNotice(await latestMail(email), {
      title: "パスキーが削除されました",
      serviceId: GUNGNIR.serviceId,
      method: "ログイン中の設定変更",
      device: "Chrome（Windows）",
      place: "日本 Tokyo",
    });
    expect(mail.text).toContain(`パスキー「${plainName}」が削除されました`);

    const other = await register(authorization, "../..");
    await ok(await passkeyCall("DELETE", `/${other.id}`, authorization), 200);
    const nameless = await latestMail(email);
    expect(nameless.text).toContain("アカウントからパスキーが削除されました");
    expect(nameless.text).not.toContain("「」");
  });

  it("tells of a passkey suspended, as the sign-in attempt that gave the copy away: its brand, device and place", async () => {
    const authorization = await signedInOnLaptop();
    const { authenticator } = await register(authorization, hostileName);
    const copy = authenticator.clone();
    const iphone = contextOf(phone, { browser: "Safari", os: "iOS", country: "US", region: "California" });
    expect((await passkeyAttempt(authenticator, ASTRA.clientId, contextOf(laptop))).status).toBe(201);
    // the copy's counter has not grown past the original's
    expect((await passkeyAttempt(copy, ASTRA.clientId, iphone)).status).toBe(403);
    const [mail] = (await outbox(email)).filter((item) => item.subject.endsWith("パスキーの利用を停止しました"));
    expectNotice(mail, {
      title: "パスキーの利用を停止しました",
      serviceId: ASTRA.serviceId,
      method: "パスキー",
      device: "Safari（iOS）",
      place: "アメリカ合衆国 California",
    });
    expect(mail?.text).toContain(`パスキー「${plainName}」で、複製された認証器からと疑われるログインがありました`);
    expect(mail?.text).toContain("パスワードでログインし");
  });

  it("names no device or place for a suspension whose attempt carried no context", async () => {
    const authorization = await signedInOnLaptop();
    const { authenticator } = await register(authorization);
    const copy = authenticator.clone();
    expect((await passkeyAttempt(authenticator, GUNGNIR.clientId, contextOf(laptop))).status).toBe(201);
    expect((await passkeyAttempt(copy, GUNGNIR.clientId)).status).toBe(403);
    const mail = expectNotice(await latestMail(email), {
      title: "パスキーの利用を停止しました",
      serviceId: GUNGNIR.serviceId,
      method: "パスキー",
      device: "不明な端末",
      place: "不明",
    });
    expect(mail.text).toContain("アカウントのパスキーで、複製された認証器");
  });

  it("names the brand and device of the login whose enrolment ticket added the passkey", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const { challenge } = await startLogin({ client: GUNGNIR.clientId, scope });
    const accepted = await ok<{ passkey_enrolment?: { ticket: string } }>(
      await login(challenge, email, undefined, undefined, { context: contextOf(laptop) }),
      201,
    );
    const ticket = accepted.passkey_enrolment?.ticket;
    if (ticket === undefined) throw new Error("no enrolment ticket");
    await register(`PasskeyEnrolment ${ticket}`, hostileName);
    const mail = expectNotice(await latestMail(email), addedOnLaptop);
    expect(mail.text).toContain(`パスキー「${plainName}」が登録されました`);
  });
});
