import { runInDurableObject } from "cloudflare:test";
import { calculatePKCECodeChallenge } from "oauth4webapi";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { findClient, type OAuthClient } from "../../emulator/contract/clients";
import { acrCheck } from "../../emulator/routes/sampleApp";
import type { AppBrand } from "../support/appStart";
import { GUNGNIR, LEMON, PARTNER, TOTP_SECRET } from "../support/vocabulary";
import {
  call,
  fileState,
  follow,
  loginWithTotp,
  outbox,
  resetEmulator,
  seedUser,
  site,
  startLogin,
} from "./emulatorClient";
import { accountWithPasskey, assertionOptions, assertionResult, openPushed } from "./operationFlow";

// docs/operations.md, "In the emulator": the sample app (emulator/routes/sampleApp.ts) plays the app server of
// gungnir-aurora (a passkey only) or liqueur-lemon (a passkey, or the temporary alternative: the password and a code):
// it pushes a withdrawal of the amount typed, sends the browser to that brand's entry, and at its redirect URI
// exchanges the code and shows what the tokens say. Here the test plays the browser and the site between the two.

beforeEach(resetEmulator);

const page = "/__emulator/sample-app";
const callbackUri = `${site}/__emulator/sample-app/callback`;

const phrLabel = "acr が phr（フィッシング耐性のある認証）";
const alternativeLabel =
  "acr が phr（フィッシング耐性のある認証）、またはブランドが認める代替手段の mfa（amr に otp か sms）";
const _totpNow = () => new TOTP({ secret: TOTP_SECRET }).generate();

/** The form's POST, as the browser sends it: the app chosen (gungnir-aurora's unless said; `null`, none) and the amount. */
function apply(amount: string, client: string | null = GUNGNIR.clientId): Promise<Response> {
  const form = new URLSearchParams({ amount });
  if (client !== null) form.set("client", client);
  return call(page, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
}

/**
 * The sample app's push as a brand's app: where it sends the browser, which must be that brand's entry of the site with
 * its client_id and the request_uri.
 */
async function pushed(amount: string, brand: AppBrand = GUNGNIR): Promise<string> {
  const response = await apply(amount, brand.clientId);
  expect(response.status, await response.clone().text()).toBe(303);
  const entry = new URL(response.headers.get("location") ?? "");
  expect(`${entry.origin}${entry.pathname}`).toBe(`${site}/${brand.serviceId}/auth`);
  expect([...entry.searchParams.keys()]).toEqual(["client_id", "request_uri"]);
  expect(entry.searchParams.get("client_id")).toBe(brand.clientId);
  const requestUri = entry.searchParams.get("request_uri") ?? "";
  expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
  return requestUri;
}

/** The customer approves with the passkey (the site's part, played here); answers where the browser is sent. */
async function approved(requestUri: string, email: string): Promise<URL> {
  const { authenticator } = await accountWithPasskey(email);
  const loginChallenge = await openPushed(requestUri, GUNGNIR.clientId);
  const options = await assertionOptions(loginChallenge);
  const accepted = await assertionResult(loginChallenge, options.session, await authenticator.authenticate(options));
  expect(accepted.status, await accepted.clone().text()).toBe(201);
  const { redirect_to } = (await accepted.json()) as { redirect_to: string };
  return (await follow(redirect_to)).location;
}

/** What the emulator keeps of pushes: the pushed requests (RFC 9126) and the sample app's own (by state, with verifier). */
async function keptPushes(): Promise<{ kind: string; id: string; data: string }[]> {
  return runInDurableObject(fileState("global"), (_instance, state) =>
    state.storage.sql
      .exec<{ kind: string; id: string; data: string }>(
        "SELECT kind, id, data FROM tickets WHERE kind IN ('pushed_request', 'sample_app_push')",
      )
      .toArray(),
  );
}

/** The emulator's client of a brand. */
function clientOf(brand: AppBrand): OAuthClient {
  const client = findClient(brand.clientId);
  if (client === undefined) throw new Error(`no client ${brand.clientId}`);
  return client;
}

/** The checks the callback's page lists, each with its answer. */
function checksOf(shown: string): string[] {
  return [...shown.matchAll(/<li>([^<]*)<\/li>/g)].map((match) => match[1] ?? "");
}

/** The HTML of a page of the sample app, with its status. */
async function html(response: Response): Promise<string> {
  expect(response.headers.get("content-type")).toContain("text/html");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.text();
}

describe("the sample app (docs/operations.md, 'In the emulator')", () => {
  it("shows a form for the app and the amount, with the sample account: gungnir-aurora's app chosen, or liqueur-lemon's", async () => {
    const response = await call(page);
    expect(response.status).toBe(200);
    const form = await html(response);
    expect(form).toContain('<form method="post" action="/__emulator/sample-app">');
    expect(form).toContain('name="amount"');
    // The two apps, named by their brands (the brand data), the passkey-only one chosen.
    expect(form).toContain('<select name="client">');
    expect([...form.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map((m) => m.slice(1))).toEqual(
      [
        [GUNGNIR.clientId, " selected", "オーロラ証券のアプリ（パスキーで承認）"],
        [LEMON.clientId, undefined, "レモンスクエア証券のアプリ（パスキー、またはパスワードと認証コードで承認）"],
      ],
    );
    expect(form).toContain("カザハナ銀行 本店 普通 ****1234");
    expect(form).not.toContain("<script");
  });

  it("pushes the amount typed, is sent back the code, exchanges it and shows the details, acr phr and no refresh token", async () => {
    const requestUri = await pushed("123,456");
    const callback = await approved(requestUri, "sample.app@example.jp");
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUri);
    expect(callback.searchParams.get("code")).toMatch(/.{16,}/);

    const response = await call(callback.toString());
    const shown = await html(response);
    expect(response.status, shown).toBe(200);
    expect(shown).toContain("出金の承認を受け取りました");
    // The details as the token response carries them, as escaped JSON text.
    const details = /<dd id="authorization-details"><pre>([\s\S]*?)<\/pre><\/dd>/.exec(shown)?.[1] ?? "";
    expect(details).not.toContain('"');
    expect(JSON.parse(details.replaceAll("&quot;", '"'))).toEqual([
      {
        type: "withdrawal",
        amount: 123_456,
        currency: "JPY",
        destination: {
          bank_name: "カザハナ銀行",
          branch_name: "本店",
          account_type: "普通",
          account_number: "****1234",
        },
      },
    ]);
    expect(shown).toContain('<dd id="acr">phr</dd>');
    expect(shown).toContain('<dd id="refresh-token">なし</dd>');
    expect(shown).toContain('<dd id="client">オーロラ証券のアプリ（パスキーで承認）</dd>');
    expect(checksOf(shown)).toEqual([
      "署名、iss、aud、exp を検証した: はい",
      "authorization_details が申し込んだ内容と同じ: はい",
      `${phrLabel}: はい`,
      "リフレッシュトークンがない: はい",
    ]);
    // The approval's notice went to the account, with the amount typed.
    expect((await outbox("sample.app@example.jp"))[0]?.text).toContain("出金額: 123,456円");

    // The state is spent: the same address again exchanges nothing.
    const again = await call(callback.toString());
    expect(again.status).toBe(400);
    expect(await html(again)).toContain("お申し込みが見つかりません");
  });

  it("plays liqueur-lemon's app: its entry, an approval by the password and TOTP, exchanged as lemon, acr mfa accepted", async () => {
    const email = "sample.lemon@example.jp";
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const requestUri = await pushed("50000", LEMON);
    // The customer takes the alternative on the site's screen (the site's part, played here).
    const loginChallenge = await openPushed(requestUri, LEMON.clientId);
    const accepted = await loginWithTotp(loginChallenge, email, TOTP_SECRET);
    expect(accepted.status, await accepted.clone().text()).toBe(201);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = (await follow(redirect_to)).location;
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUri);

    const response = await call(callback.toString());
    const shown = await html(response);
    expect(response.status, shown).toBe(200);
    expect(shown).toContain("出金の承認を受け取りました");
    expect(shown).toContain(
      '<dd id="client">レモンスクエア証券のアプリ（パスキー、またはパスワードと認証コードで承認）</dd>',
    );
    expect(shown).toContain("&quot;amount&quot;: 50000");
    expect(shown).toContain('<dd id="acr">mfa</dd>');
    expect(shown).toContain('<dd id="amr">pwd otp mfa</dd>');
    expect(checksOf(shown)).toEqual([
      "署名、iss、aud、exp を検証した: はい",
      "authorization_details が申し込んだ内容と同じ: はい",
      `${alternativeLabel}: はい`,
      "リフレッシュトークンがない: はい",
    ]);
  });

  it("refuses an app other than its two, like a bad amount: the form again (400), nothing pushed, nothing kept", async () => {
    const others: [client: string | null, why: string][] = [
      [null, "no client"],
      ["", "empty"],
      [PARTNER.clientId, "a partner's client"],
      ["0bytrs5pi7z7f780xyyge7xtb2", "liqueur-lemon's other client"],
      [`${GUNGNIR.clientId} `, "gungnir-aurora's, with a space"],
      ["<b>x</b>", "markup"],
    ];
    for (const [client, why] of others) {
      const response = await apply("100000", client);
      expect(response.status, why).toBe(400);
      expect(response.headers.get("location"), why).toBeNull();
      const form = await html(response);
      expect(form, why).toContain("アプリを一覧から選んでください。");
      expect(form, why).toContain('value="100000"');
      expect(form, why).not.toContain("<b>x</b>");
    }
    expect(await keptPushes()).toEqual([]);
  });

  it("fails gungnir-aurora's acr check for a code of an mfa login: a passkey-only brand takes phr alone", async () => {
    // gungnir-aurora's operation refuses the password (operation_requires_passkey), so an mfa code comes to the callback
    // only from elsewhere: here a sign-in's, under the push's state and verifier (read from the emulator's state).
    const email = "sample.aurora.mfa@example.jp";
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    await pushed("100000");
    const [push] = (await keptPushes()).filter((row) => row.kind === "sample_app_push");
    const { codeVerifier } = JSON.parse(push?.data ?? "{}") as { codeVerifier: string };
    const signIn = await startLogin({
      client: GUNGNIR.clientId,
      redirectUri: callbackUri,
      state: push?.id ?? "",
      scope: "openid",
      codeChallenge: await calculatePKCECodeChallenge(codeVerifier),
    });
    const accepted = await loginWithTotp(signIn.challenge, email, TOTP_SECRET);
    expect(accepted.status, await accepted.clone().text()).toBe(201);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const callback = (await follow(redirect_to)).location;
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackUri);

    const shown = await html(await call(callback.toString()));
    expect(shown).toContain('<dd id="acr">mfa</dd>');
    expect(checksOf(shown)).toEqual([
      "署名、iss、aud、exp を検証した: はい",
      "authorization_details が申し込んだ内容と同じ: いいえ",
      `${phrLabel}: いいえ`,
      // A sign-in's tokens, not an operation's: they come with a refresh token.
      "リフレッシュトークンがない: いいえ",
    ]);
  });

  it("takes acr mfa with amr otp or sms only for a brand with the alternative; phr for both; nothing else", () => {
    const aurora = clientOf(GUNGNIR);
    const lemon = clientOf(LEMON);
    expect(acrCheck(aurora, { acr: "phr", amr: ["pop", "mfa"] })).toEqual([phrLabel, true]);
    expect(acrCheck(lemon, { acr: "phr", amr: ["pop", "mfa"] })).toEqual([alternativeLabel, true]);
    for (const amr of [
      ["pwd", "otp", "mfa"],
      ["pwd", "sms", "mfa"],
    ]) {
      expect(acrCheck(aurora, { acr: "mfa", amr })).toEqual([phrLabel, false]);
      expect(acrCheck(lemon, { acr: "mfa", amr })).toEqual([alternativeLabel, true]);
    }
    for (const claims of [{ acr: "mfa", amr: ["pwd"] }, { acr: "mfa" }, { acr: "pwd", amr: ["pwd"] }, {}])
      for (const client of [aurora, lemon]) expect(acrCheck(client, claims)[1], JSON.stringify(claims)).toBe(false);
  });

  it("says why a refused request came back, from the OAuth2 server's error at its redirect URI", async () => {
    const requestUri = await pushed("100000");
    await openPushed(requestUri, GUNGNIR.clientId);
    // The request_uri again: used, so the server sends the browser back with the error and the push's state.
    const refused = await call(
      `/oauth2/auth?${new URLSearchParams({ client_id: GUNGNIR.clientId, request_uri: requestUri })}`,
    );
    const back = new URL(refused.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(callbackUri);
    expect(back.searchParams.get("error")).toBe("invalid_request_uri");
    const response = await call(back.toString());
    expect(response.status).toBe(200);
    const shown = await html(response);
    expect(shown).toContain("出金は承認されませんでした");
    expect(shown).toContain("invalid_request_uri");
  });

  it("says so when the code it is given is not one the token endpoint takes", async () => {
    const requestUri = await pushed("100000");
    const back = new URL(callbackUri);
    back.search = new URLSearchParams({ code: "not-a-code-of-this-push", state: await stateOf(requestUri) }).toString();
    const response = await call(back.toString());
    expect(response.status).toBe(400);
    const shown = await html(response);
    expect(shown).toContain("トークンを受け取れませんでした");
    expect(shown).toContain("invalid_grant");
  });

  it("refuses an amount that is not whole yen, or out of range, keeping what was typed, and sends the browser nowhere", async () => {
    const refused: [amount: string, why: string][] = [
      ["12.5", "半角数字で入力してください"],
      ["0", "invalid_authorization_details"],
      ["100000001", "invalid_authorization_details"],
    ];
    for (const [amount, why] of refused) {
      const response = await apply(amount);
      expect(response.status, amount).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      const form = await html(response);
      expect(form).toContain(why);
      expect(form).toContain(`value="${amount}"`);
    }
  });

  it("escapes everything it shows: the amount typed, and the error, its description and the state of a callback", async () => {
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;";
    const refused = await html(await apply(hostile));
    expect(refused).toContain(`value="${escaped}"`);

    // A callback of a real push, whose error and description are anyone's text.
    const requestUri = await pushed("100000");
    const back = new URL(callbackUri);
    const state = await stateOf(requestUri);
    back.search = new URLSearchParams({ error: hostile, error_description: `'${hostile}`, state }).toString();
    const denied = await html(await call(back.toString()));
    expect(denied).toContain(escaped);
    expect(denied).toContain(`&#39;${escaped}`);

    // A callback of no push: the state it names is shown escaped.
    const unknown = new URL(callbackUri);
    unknown.search = new URLSearchParams({ code: "x".repeat(20), state: hostile }).toString();
    const missing = await html(await call(unknown.toString()));
    expect(missing).toContain(escaped);

    for (const shown of [refused, denied, missing]) {
      expect(shown).not.toContain("<script");
      expect(shown).not.toContain("<img");
    }
  });
});

/** The state the sample app pushed with, as the OAuth2 server hands it back at the redirect URI of a used request. */
async function stateOf(requestUri: string): Promise<string> {
  const open = () =>
    call(`/oauth2/auth?${new URLSearchParams({ client_id: GUNGNIR.clientId, request_uri: requestUri })}`);
  await open();
  const back = new URL((await open()).headers.get("location") ?? "");
  return back.searchParams.get("state") ?? "";
}
