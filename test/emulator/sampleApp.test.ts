import { beforeEach, describe, expect, it } from "vitest";
import { GUNGNIR } from "../support/vocabulary";
import { call, follow, outbox, resetEmulator, site } from "./emulatorClient";
import { accountWithPasskey, assertionOptions, assertionResult, openPushed } from "./operationFlow";

// docs/operations.md, "In the emulator": the sample app (emulator/routes/sampleApp.ts) plays gungnir-aurora's app
// server: it pushes a withdrawal of the amount typed, sends the browser to the site's entry, and at its redirect URI
// exchanges the code and shows what the tokens say. Here the test plays the browser and the site between the two.

beforeEach(resetEmulator);

const page = "/__emulator/sample-app";
const callbackUri = `${site}/__emulator/sample-app/callback`;

/** The form's POST, as the browser sends it. */
function apply(amount: string): Promise<Response> {
  return call(page, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ amount }).toString(),
  });
}

/** The sample app's push: where it sends the browser, which must be the site's entry with client_id and request_uri. */
async function pushed(amount: string): Promise<string> {
  const response = await apply(amount);
  expect(response.status, await response.clone().text()).toBe(303);
  const entry = new URL(response.headers.get("location") ?? "");
  expect(`${entry.origin}${entry.pathname}`).toBe(`${site}/${GUNGNIR.serviceId}/auth`);
  expect([...entry.searchParams.keys()]).toEqual(["client_id", "request_uri"]);
  expect(entry.searchParams.get("client_id")).toBe(GUNGNIR.clientId);
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

/** The HTML of a page of the sample app, with its status. */
async function html(response: Response): Promise<string> {
  expect(response.headers.get("content-type")).toContain("text/html");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.text();
}

describe("the sample app (docs/operations.md, 'In the emulator')", () => {
  it("shows a form for the amount, with the sample account", async () => {
    const response = await call(page);
    expect(response.status).toBe(200);
    const form = await html(response);
    expect(form).toContain('<form method="post" action="/__emulator/sample-app">');
    expect(form).toContain('name="amount"');
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
    for (const check of [
      "署名、iss、aud、exp を検証した: はい",
      "authorization_details が申し込んだ内容と同じ: はい",
      "acr が phr（フィッシング耐性のある認証）: はい",
      "リフレッシュトークンがない: はい",
    ])
      expect(shown).toContain(check);
    // The approval's notice went to the account, with the amount typed.
    expect((await outbox("sample.app@example.jp"))[0]?.text).toContain("出金額: 123,456円");

    // The state is spent: the same address again exchanges nothing.
    const again = await call(callback.toString());
    expect(again.status).toBe(400);
    expect(await html(again)).toContain("お申し込みが見つかりません");
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
