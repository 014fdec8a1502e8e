import { env } from "cloudflare:test";
import { decodeJwt } from "jose";
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";
import { TOTP } from "otpauth";
import { afterEach, describe, expect, it } from "vitest";
import type { AuthorizationDetails, BankAccount } from "../../forms/authorizationDetails";
import { screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import type { AppBrand } from "../support/appStart";
import { expectModal } from "../support/expectations";
import { formPost } from "../support/forms";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { operationConfirmationCase } from "../support/screens";
import type { RequestOptionsJSON, SoftAuthenticator } from "../support/softAuthenticator";
import { GUNGNIR, LEMON, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { emulator, loggedDuring, ORIGIN, openScreen, sealedCookie, siteFetch } from "./helpers";
import { customerWithPasskey, Journey } from "./journey";
import { rateLimitClock } from "./rateLimits";

// docs/operations.md "On the site": an operation the app's server pushed (RFC 9126) as RFC 9396 authorization_details,
// shown by the site as pushed and approved by a passkey whose challenge the upstream derives from exactly those
// details. The emulator plays the identity API and the OAuth2 server behind the site, the software authenticator the
// customer's passkey.

afterEach(async () => {
  await emulator.clearFaults();
  await emulator.clock(0);
});

const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;
const appRedirectUri = (brand: AppBrand) => `https://app.${brand.serviceId}.example/oauth/callback`;

const account: BankAccount = {
  bank_name: "みずほ銀行",
  branch_name: "渋谷支店",
  account_type: "普通",
  account_number: "****9876",
};
/** An amount and an account number no other line of a log could hold by chance. */
const withdrawal: AuthorizationDetails = [
  { type: "withdrawal", amount: 123_456, currency: "JPY", destination: account },
];
const bankAccountChange: AuthorizationDetails = [
  {
    type: "bank_account_change",
    account: { bank_name: "三井住友銀行", branch_name: "本店営業部", account_type: "当座", account_number: "****5555" },
  },
];
const emailChange: AuthorizationDetails = [{ type: "contact_change", channel: "email", new_value: "t***@example.com" }];
const phoneChange: AuthorizationDetails = [{ type: "contact_change", channel: "phone", new_value: "***-****-5678" }];

/** A customer with a passkey (journey.ts): its authenticator. */
async function passkeyCustomer(): Promise<SoftAuthenticator> {
  return (await customerWithPasskey("operation.user")).authenticator;
}

interface Pushed {
  requestUri: string;
  verifier: string;
  state: string;
  brand: AppBrand;
}

/** The app's server pushes an operation, to the site's origin as discovery advertises it (the narrow proxy). */
async function push(details: AuthorizationDetails, scope = "openid", brand: AppBrand = GUNGNIR): Promise<Pushed> {
  const verifier = generateRandomCodeVerifier();
  const state = `operation-${crypto.randomUUID()}`;
  const response = await siteFetch(`${ORIGIN}/oauth2/par`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: brand.clientId,
      response_type: "code",
      redirect_uri: appRedirectUri(brand),
      state,
      scope,
      code_challenge: await calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      authorization_details: JSON.stringify(details),
    }),
  });
  const body = (await response.json()) as { request_uri: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return { requestUri: body.request_uri, verifier, state, brand };
}

/** Where the app opens the browser for a pushed request: its client_id and request_uri (and `extra`, to be refused). */
function entryPath(requestUri: string, extra: Record<string, string> = {}, brand: AppBrand = GUNGNIR): string {
  const query = new URLSearchParams({ client_id: brand.clientId, request_uri: requestUri, ...extra });
  return `/${brand.serviceId}/auth?${query}`;
}

/** The browser opens the pushed request; answers the confirmation page's HTML. */
async function open(journey: Journey, pushed: Pushed): Promise<string> {
  const response = await journey.request(entryPath(pushed.requestUri, {}, pushed.brand));
  const html = await response.text();
  expect(response.status, withoutPhraseBreaks(html).slice(0, 2000)).toBe(200);
  return html;
}

const decoded = (html: string) =>
  withoutPhraseBreaks(html)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");

/** The definition list's rows, as they read. */
function detailRows(html: string): [string, string][] {
  const list = /<dl class="operation-details">([\s\S]*?)<\/dl>/.exec(html)?.[1];
  expect(list, "no definition list of the operation").toBeDefined();
  return [...(list ?? "").matchAll(/<dt>([\s\S]*?)<\/dt><dd>([\s\S]*?)<\/dd>/g)].map(
    ([, term = "", value = ""]) => [decoded(term), decoded(value)] as [string, string],
  );
}

/** The page's mark of the operation it shows, which its forms post. */
function shownMark(html: string): string {
  const mark = /name="operation" value="([0-9a-f]{64})"/.exec(html)?.[1];
  expect(mark, "no operation mark on the page").toBeDefined();
  return mark ?? "";
}

/** The island's same-origin fetch of the ceremony's options. */
async function optionsFor(journey: Journey): Promise<RequestOptionsJSON> {
  const response = await journey.request("/operation/options", {
    ...formPost({}),
    headers: { "Sec-Fetch-Site": "same-origin" },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { publicKey: RequestOptionsJSON }).publicKey;
}

/** The island's post of the signed credential, as the page's form carries it. */
function approve(journey: Journey, html: string, credential: object): Promise<Response> {
  return journey.postForm("/operation", {
    client_id: GUNGNIR.clientId,
    operation: shownMark(html),
    credential: JSON.stringify(credential),
  });
}

/** The app's server exchanges the code at the token endpoint (through the site's proxy, as an app does). */
async function exchange(code: string, pushed: Pushed): Promise<Record<string, unknown>> {
  const response = await siteFetch(`${ORIGIN}/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: appRedirectUri(pushed.brand),
      client_id: pushed.brand.clientId,
      code_verifier: pushed.verifier,
    }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("the confirmation screen (docs/operations.md, 'On the site')", () => {
  it.each([
    [
      "a withdrawal",
      withdrawal,
      "出金のご確認",
      [
        ["出金額", "123,456円"],
        ["出金先", "みずほ銀行 渋谷支店 普通 ****9876"],
      ],
    ],
    [
      "a bank-account change",
      bankAccountChange,
      "出金先口座の変更のご確認",
      [["新しい出金先口座", "三井住友銀行 本店営業部 当座 ****5555"]],
    ],
    [
      "an e-mail change",
      emailChange,
      "ご連絡先の変更のご確認",
      [
        ["変更する連絡先", "メールアドレス"],
        ["新しい連絡先", "t***@example.com"],
      ],
    ],
    [
      "a phone change",
      phoneChange,
      "ご連絡先の変更のご確認",
      [
        ["変更する連絡先", "電話番号"],
        ["新しい連絡先", "***-****-5678"],
      ],
    ],
  ])("shows %s as pushed: its heading and every detail, and nothing else", async (_name, details, heading, rows) => {
    const pushed = await push(details);
    const journey = new Journey();
    const html = await open(journey, pushed);
    expect(withoutPhraseBreaks(html)).toContain(`<h1 class="card-title">${heading}</h1>`);
    expect(detailRows(html)).toEqual(rows);
    // Every other type's words stay off the page.
    const others = Object.entries(screens.operation.titles).filter(
      ([, title]) => withoutPhraseBreaks(title) !== heading,
    );
    for (const [, title] of others) expect(html).not.toContain(title);
    // Nothing of the query or the login reaches the page: no request_uri, no challenge.
    const challenge = (await journey.sealedKept("operation")).loginChallenge;
    expect(html).not.toContain(pushed.requestUri);
    expect(html).not.toContain(encodeURIComponent(pushed.requestUri));
    expect(html).not.toContain(challenge);
    // No password form at all, and one way to approve: the passkey, with the way back.
    expect(html).not.toContain('type="password"');
    expect(html).not.toContain('action="/signIn"');
    expect(html).toContain('action="/operation"');
    expect(html).toContain('action="/operation/cancel"');
    expect(html).toContain('data-island="PasskeySignIn"');
    expect(html).toContain("パスキーで承認する");
    // The forms end at the app (the code, or the cancel): its registered origin joins form-action.
    const response = await journey.request("/operation");
    expect(response.headers.get("Content-Security-Policy")).toContain(
      `form-action 'self' https://app.${GUNGNIR.serviceId}.example`,
    );
    // The screen again (a reload) reads the same operation from the upstream.
    expect(detailRows(await response.text())).toEqual(rows);
  });

  it("renders its screen case (test/support/screens.ts) as the bench measures it", async () => {
    const screen = operationConfirmationCase(GUNGNIR);
    const response = await openScreen(screen, GUNGNIR);
    expect(response.status).toBe(screen.status);
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    expect(detailRows(html)).toEqual([
      ["出金額", "100,000円"],
      ["出金先", "みずほ銀行 渋谷支店 普通 ****1234"],
    ]);
  });

  it("escapes the app's text: a bank name with markup is shown as text", async () => {
    const html = await open(
      new Journey(),
      await push([
        {
          type: "withdrawal",
          amount: 1,
          currency: "JPY",
          destination: { ...account, bank_name: '<img src=x onerror="alert(1)">' },
        },
      ]),
    );
    expect(html).not.toContain("<img src=x");
    expect(detailRows(html)).toEqual([
      ["出金額", "1円"],
      ["出金先", '<img src=x onerror="alert(1)"> 渋谷支店 普通 ****9876'],
    ]);
  });

  it("says what to do without script or WebAuthn, and without a passkey, as the step-up page does", async () => {
    const html = await open(new Journey(), await push(withdrawal));
    expect(html).toContain(screens.signIn.passkeyRequired);
    expect(html).toContain(screens.signIn.noPasskey);
    expect(withoutPhraseBreaks(html)).toContain(
      `<noscript><p class="note">${screens.operation.noScript}</p></noscript>`,
    );
    // Without script the cancel still works: a plain form.
    expect(html).toMatch(/<form action="\/operation\/cancel" method="post">[\s\S]*?<button type="submit"/);
  });

  it("offers no passkey button where passkeys are off, and still shows the operation", async () => {
    const journey = new Journey({ env: { PASSKEYS: "off" } });
    const html = await open(journey, await push(withdrawal));
    expect(detailRows(html)).toHaveLength(2);
    expect(html).not.toContain('data-island="PasskeySignIn"');
    expect(html).toContain(screens.signIn.noPasskey);
    const options = await journey.request("/operation/options", {
      ...formPost({}),
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(options.status).toBe(404);
  });
});

describe("the approval", () => {
  it("approves with the passkey: the app gets a code whose tokens carry the details, acr phr and no refresh token", async () => {
    const authenticator = await passkeyCustomer();
    const pushed = await push(withdrawal, "openid offline offline_access");
    const journey = new Journey();
    const html = await open(journey, pushed);
    const approved = await approve(journey, html, await authenticator.authenticate(await optionsFor(journey)));
    expect(approved.status).toBe(303);
    const { foreign } = await journey.follow(approved);
    expect(`${foreign?.origin}${foreign?.pathname}`).toBe(appRedirectUri(GUNGNIR));
    expect(foreign?.searchParams.get("state")).toBe(pushed.state);
    const tokens = await exchange(foreign?.searchParams.get("code") ?? "", pushed);
    expect(tokens.authorization_details).toEqual(withdrawal);
    expect(tokens).not.toHaveProperty("refresh_token");
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ acr: "phr", authorization_details: withdrawal });
    // The operation is over in this browser: its forms have nothing left to act on.
    expect(journey.has("__Host-operation")).toBe(false);
    await expectModal(await approve(journey, html, {}), 400, "parameterError");
  });

  it("refuses an assertion over another challenge (other details), says so, and approves with the right one", async () => {
    const authenticator = await passkeyCustomer();
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal));
    const forged = await authenticator.authenticate(await optionsFor(journey), {
      challenge: "c2lnbi1pbi1jaGFsbGVuZ2UtMDEyMzQ1Njc4OWFiY2RlZg",
    });
    const refused = await approve(journey, html, forged);
    const page = await expectModal(refused, modals.operationNotApproved.status, "operationNotApproved");
    // The same screen under the modal, with the same details.
    expect(detailRows(page)).toHaveLength(2);
    // A credential posted again without new options: the ceremony was spent by the first try.
    await expectModal(await approve(journey, html, forged), 401, "operationNotApproved");
    const right = await approve(journey, html, await authenticator.authenticate(await optionsFor(journey)));
    expect(right.status).toBe(303);
  });

  it("counts refused approvals per passkey (credential class): the sixth for one passkey gets 429, across operations", async () => {
    const authenticator = await passkeyCustomer();
    const statuses: number[] = [];
    // Three refused tries on each of two operations: no login reaches its own fifth, so the sixth is the site's limit.
    for (const _operation of [1, 2]) {
      const journey = new Journey();
      const html = await open(journey, await push(withdrawal));
      for (let attempt = 0; attempt < 3; attempt++) {
        const forged = await authenticator.authenticate(await optionsFor(journey), {
          challenge: "c2lnbi1pbi1jaGFsbGVuZ2UtMDEyMzQ1Njc4OWFiY2RlZg",
        });
        const response = await approve(journey, html, forged);
        await response.body?.cancel();
        statuses.push(response.status);
      }
    }
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(modals.operationNotApproved.status));
    expect(statuses.at(-1)).toBe(429);
  });

  it("ends the operation with the login's last refused try (the fifth): the screen says so, not 'try again'", async () => {
    const authenticator = await passkeyCustomer();
    const journey = new Journey();
    const html = await open(journey, await push(bankAccountChange));
    for (let attempt = 1; attempt <= 5; attempt++) {
      const forged = await authenticator.authenticate(await optionsFor(journey), { origin: "https://evil.example" });
      const refused = await approve(journey, html, forged);
      if (attempt < 5) {
        await refused.body?.cancel();
        expect(refused.status).toBe(modals.operationNotApproved.status);
      } else await expectModal(refused, 400, "operationUnavailable");
    }
    expect(journey.has("__Host-operation")).toBe(false);
  });

  it("refuses the form of a page that showed another operation than this browser's now", async () => {
    const authenticator = await passkeyCustomer();
    const journey = new Journey();
    const first = await open(journey, await push(withdrawal));
    // Another operation opened in this browser since (another tab): the first page's approval is not its.
    await open(journey, await push(phoneChange));
    const signed = await authenticator.authenticate(await optionsFor(journey));
    await expectModal(await approve(journey, first, signed), 400, "operationUnavailable");
    const cancel = await journey.postForm("/operation/cancel", {
      client_id: GUNGNIR.clientId,
      operation: shownMark(first),
    });
    await expectModal(cancel, 400, "operationUnavailable");
  });

  it("starts no ceremony for a page of another site, or without an operation in this browser", async () => {
    const journey = new Journey();
    await open(journey, await push(withdrawal));
    const crossSite = await journey.request("/operation/options", {
      ...formPost({}),
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const none = await new Journey().request("/operation/options", {
      ...formPost({}),
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(none.status).toBe(404);
    await expectModal(await new Journey().request("/operation"), 400, "parameterError");
  });
});

/** The browser's cookie pair of the operation, to plant again as a stale tab would still hold it. */
function operationCookie(journey: Journey): string {
  const pair = journey
    .cookieHeader("/")
    .split("; ")
    .find((part) => part.startsWith("__Host-operation="));
  expect(pair, "no operation cookie").toBeDefined();
  return `${pair}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

function cancel(journey: Journey, html: string): Promise<Response> {
  return journey.postForm("/operation/cancel", { client_id: GUNGNIR.clientId, operation: shownMark(html) });
}

describe("the cancel", () => {
  it("rejects the login upstream and follows its redirect_to back to the app: access_denied and the pushed state", async () => {
    const pushed = await push(emailChange);
    const journey = new Journey();
    const html = await open(journey, pushed);
    const seen: { path: string; body: string }[] = [];
    const upstream = env.IDENTITY;
    if (!upstream) throw new Error("the worker project binds the emulator as IDENTITY");
    const recording = {
      async fetch(request: Request) {
        const path = new URL(request.url).pathname;
        if (request.method === "POST") seen.push({ path, body: await request.clone().text() });
        return upstream.fetch(request);
      },
    } as unknown as Fetcher;
    const cancelled = await journey.postForm(
      "/operation/cancel",
      { client_id: GUNGNIR.clientId, operation: shownMark(html) },
      { env: { IDENTITY: recording } },
    );
    // The reject call, with the login challenge and access_denied; then the upstream's redirect_to (at the site's
    // origin: the OAuth2 server, through the narrow proxy), never a target of the request.
    expect(seen.map(({ path }) => path)).toEqual(["/auth/v1/login/reject"]);
    expect(JSON.parse(seen[0]?.body ?? "{}")).toMatchObject({
      error: "access_denied",
      error_description: "The customer cancelled the operation.",
      context: { browser: expect.any(String), os: expect.any(String) },
    });
    expect(cancelled.status).toBe(303);
    const resume = new URL(cancelled.headers.get("Location") ?? "");
    expect(`${resume.origin}${resume.pathname}`).toBe(`${ORIGIN}/oauth2/auth`);
    expect(resume.searchParams.get("login_verifier")).toMatch(/.{16,}/);
    expect(journey.has("__Host-operation")).toBe(false);
    const { foreign } = await journey.follow(cancelled);
    expect(`${foreign?.origin}${foreign?.pathname}`).toBe(appRedirectUri(GUNGNIR));
    expect(Object.fromEntries(foreign?.searchParams ?? [])).toEqual({
      error: "access_denied",
      error_description: "The customer cancelled the operation.",
      state: pushed.state,
    });
    await expectModal(await journey.request("/operation"), 400, "parameterError");
  });

  it("leaves the challenge dead upstream: a second approval is refused, by the site and by the identity API", async () => {
    const authenticator = await passkeyCustomer();
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal));
    const { loginChallenge } = await journey.sealedKept("operation");
    // A ceremony in flight, signed by the passkey, as a second tab of the same screen would hold it.
    const signed = await authenticator.authenticate(await optionsFor(journey));
    const session = (await journey.sealedKept("operation")).passkey?.session;
    const stale = operationCookie(journey);
    const cancelled = await cancel(journey, html);
    expect(cancelled.status).toBe(303);
    await cancelled.body?.cancel();
    journey.setCookie(stale);
    await expectModal(await approve(journey, html, signed), 400, "operationUnavailable");
    if (!env.IDENTITY) throw new Error("the worker project binds the emulator as IDENTITY");
    const upstream = await env.IDENTITY.fetch(`${ORIGIN}/auth/v1/passkeys/assertion/result`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "localhost" },
      body: JSON.stringify({ login_challenge: loginChallenge, session, ...signed }),
    });
    expect(upstream.status).toBe(404);
    expect(await upstream.json()).toMatchObject({ type: "challenge_not_found" });
  });

  it("shows the catalogue's modal when the reject fails upstream, keeps the operation, and cancels once it is back", async () => {
    const journey = new Journey();
    const html = await open(journey, await push(phoneChange));
    await emulator.fault({ method: "POST", pathPattern: "/auth/v1/login/reject", status: 500 });
    const failed = await cancel(journey, html);
    const page = await expectModal(failed, 502, "unexpectedError");
    expect(detailRows(page)).toHaveLength(2);
    await emulator.fault({
      method: "POST",
      pathPattern: "/auth/v1/login/reject",
      status: 503,
      body: { type: "maintenance" },
    });
    await expectModal(await cancel(journey, html), 503, "maintenance");
    // The faults answered in the upstream's place: the login is still alive, and the cancel goes through now.
    const { foreign } = await journey.follow(await cancel(journey, html));
    expect(foreign?.searchParams.get("error")).toBe("access_denied");
  });

  it("follows the reject's redirect_to only to an allowed origin", async () => {
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal));
    await emulator.fault({
      method: "POST",
      pathPattern: "/auth/v1/login/reject",
      status: 201,
      body: { redirect_to: "https://evil.example/oauth/callback?error=access_denied" },
    });
    const refused = await cancel(journey, html);
    expect(refused.headers.get("Location")).toBeNull();
    await expectModal(refused, 502, "unexpectedError");
  });
});

describe("the history on /security (docs/devices.md)", () => {
  it("lists an approval, a refusal and a cancel by the operation's words, with no amount or account", async () => {
    const { authenticator, journey } = await customerWithPasskey("operation.user");
    const approved = new Journey();
    const first = await open(approved, await push(withdrawal));
    const accepted = await approve(approved, first, await authenticator.authenticate(await optionsFor(approved)));
    expect(accepted.status).toBe(303);
    await accepted.body?.cancel();
    const refused = new Journey();
    const second = await open(refused, await push(bankAccountChange));
    const forged = await authenticator.authenticate(await optionsFor(refused), { origin: "https://evil.example" });
    await expectModal(await approve(refused, second, forged), 401, "operationNotApproved");
    const cancelling = new Journey();
    const third = await open(cancelling, await push(emailChange));
    const cancelled = await cancel(cancelling, third);
    expect(cancelled.status).toBe(303);
    await cancelled.body?.cancel();

    const response = await journey.request("/security");
    expect(response.status).toBe(200);
    const html = withoutPhraseBreaks(await response.text());
    const section = html.slice(html.indexOf("ログイン履歴（過去90日間）"));
    const rows = [...section.matchAll(/<li class="row">([\s\S]*?)<\/li>/g)].map(([, row = ""]) =>
      row.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "),
    );
    expect(rows).toHaveLength(4);
    const [cancelRow = "", refusedRow = "", approvalRow = "", signInRow = ""] = rows;
    expect(cancelRow).toContain("方法：ご連絡先の変更の承認（パスキー）");
    expect(cancelRow).toContain("キャンセル");
    expect(cancelRow).not.toContain("失敗");
    expect(refusedRow).toContain("方法：出金先口座の変更の承認（パスキー）");
    expect(refusedRow).toContain("失敗");
    expect(approvalRow).toContain("方法：出金の承認（パスキー）");
    expect(approvalRow).not.toMatch(/失敗|キャンセル/);
    expect(signInRow).toContain("方法：パスワード");
    expect(signInRow).not.toContain("の承認");
    // The words are labels, not colour alone: the cancel's tag is text too.
    expect(html).toMatch(/<span class="tag">キャンセル<\/span>/);
    expect(html).toMatch(/<span class="tag tag--refused">失敗<\/span>/);
    // The history names what was approved, never its amount, account or contact (the notice has them).
    for (const secret of [
      "123,456",
      "123456",
      "****9876",
      "****5555",
      account.bank_name,
      account.branch_name,
      "三井住友銀行",
      "t***@example.com",
    ])
      expect(html, secret).not.toContain(secret);
  });
});

describe("the app's start of a pushed request", () => {
  it("asks the authorization endpoint with exactly client_id and request_uri", async () => {
    const seen: string[] = [];
    const upstream = env.IDENTITY;
    if (!upstream) throw new Error("the worker project binds the emulator as IDENTITY");
    const recording = {
      fetch(request: Request) {
        if (new URL(request.url).pathname === "/oauth2/auth") seen.push(new URL(request.url).search);
        return upstream.fetch(request);
      },
    } as unknown as Fetcher;
    const pushed = await push(withdrawal);
    const response = await new Journey().request(entryPath(pushed.requestUri), {}, { env: { IDENTITY: recording } });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(seen).toHaveLength(1);
    const asked = new URLSearchParams(seen[0]);
    expect([...asked.keys()].sort()).toEqual(["client_id", "request_uri"]);
    expect(asked.get("request_uri")).toBe(pushed.requestUri);
  });

  it.each([
    ["a tampered request_uri (another value)", async (pushed: Pushed) => `${pushed.requestUri}x`],
    ["an unknown request_uri", async () => "urn:ietf:params:oauth:request_uri:nothing-was-pushed"],
    [
      "a replayed request_uri (used twice)",
      async (pushed: Pushed) => {
        await open(new Journey(), pushed);
        return pushed.requestUri;
      },
    ],
    [
      "an expired request_uri (after 90 seconds)",
      async (pushed: Pushed) => {
        await emulator.clock(91_000);
        return pushed.requestUri;
      },
    ],
  ])("answers %s with the modal whose way back is the app, never a 500", async (_name, requestUri) => {
    const pushed = await push(withdrawal);
    const journey = new Journey();
    const response = await journey.request(entryPath(await requestUri(pushed)));
    const html = await expectModal(response, 400, "operationUnavailable");
    expect(html).toContain("アプリに戻る");
    expect(journey.has("__Host-operation")).toBe(false);
  });

  it.each([
    ["another parameter", { foo: "1" }],
    ["a state", { state: "operation-state-0001" }],
    ["the details in the URL", { authorization_details: JSON.stringify(withdrawal) }],
    ["a redirect URI", { redirect_uri: "https://app.gungnir-aurora.example/oauth/callback" }],
    ["the app's usual parameters", { view: "signIn", app_url: "https://app.gungnir-aurora.example" }],
  ])("refuses a request_uri with %s beside it: the parameter problem, nothing asked upstream", async (_name, extra) => {
    const pushed = await push(withdrawal);
    const refused = await new Journey().request(entryPath(pushed.requestUri, extra));
    await expectModal(refused, 400, "parameterError");
    // The site never asked: the pushed request is still good.
    await open(new Journey(), pushed);
  });

  it("refuses a request_uri given twice, or under another brand's path", async () => {
    const pushed = await push(withdrawal);
    const twice = `${entryPath(pushed.requestUri)}&request_uri=${encodeURIComponent(pushed.requestUri)}`;
    await expectModal(await new Journey().request(twice), 400, "parameterError");
    const elsewhere = entryPath(pushed.requestUri).replace(`/${GUNGNIR.serviceId}/`, "/liqueur-lemon/");
    await expectModal(await new Journey().request(elsewhere), 400, "parameterError");
  });

  it("answers a login request whose details do not parse with the unexpected error, showing none of them", async () => {
    const pushed = await push(withdrawal);
    await emulator.fault({
      method: "GET",
      pathPattern: "/auth/v1/login",
      status: 200,
      body: {
        client_id: GUNGNIR.clientId,
        request_url: `${ORIGIN}/oauth2/auth?client_id=${GUNGNIR.clientId}&state=${pushed.state}`,
        authorization_details: [{ ...withdrawal[0], amount: 9_000_000_000 }],
      },
    });
    const response = await new Journey().request(entryPath(pushed.requestUri));
    const html = await expectModal(response, 502, "unexpectedError");
    expect(html).not.toContain("9,000,000,000");
    expect(html).not.toContain("みずほ銀行");
  });

  it("keeps an operation's login off the sign-in page: the login URL refuses its challenge", async () => {
    const pushed = await push(withdrawal);
    if (!env.IDENTITY) throw new Error("the worker project binds the emulator as IDENTITY");
    // The challenge as a client that opened the request elsewhere would have it, planted in a browser whose own
    // app start holds the same client and state.
    const opened = await env.IDENTITY.fetch(`${ORIGIN}/oauth2/auth?${entryPath(pushed.requestUri).split("?")[1]}`, {
      headers: { "X-Forwarded-Proto": "https", "X-Forwarded-Host": new URL(ORIGIN).host },
      redirect: "manual",
    });
    const loginUrl = new URL(opened.headers.get("Location") ?? "");
    expect(loginUrl.searchParams.get("login_challenge")).toMatch(/.{16,}/);
    const authRequest = await sealedCookie("authRequest", {
      query: {
        client_id: GUNGNIR.clientId,
        view: "signIn",
        app_url: `https://app.${GUNGNIR.serviceId}.example`,
        callback_path: "/oauth/callback",
        state: pushed.state,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      },
      serviceId: GUNGNIR.serviceId,
      redirectUri: appRedirectUri(GUNGNIR),
    });
    const journey = new Journey();
    journey.setCookie(`${authRequest}; Path=/; Secure; HttpOnly; SameSite=Lax`);
    const taken = await journey.request(`/${loginUrl.search}`);
    await expectModal(taken, 400, "parameterError");
    expect(journey.has("__Host-sign-in")).toBe(false);
  });
});

describe("the log lines (docs/runbook.md, 'Event lines')", () => {
  it("say the brand, the type and the outcome of each push, approval, refusal and cancel, and never the details", async () => {
    const authenticator = await passkeyCustomer();
    // Two pushes' request_uri, for the check that no line holds them.
    const requestUris: string[] = [];
    const logged = await loggedDuring(async () => {
      const approved = await push(withdrawal);
      const cancelled = await push(withdrawal);
      requestUris.push(approved.requestUri, cancelled.requestUri);
      const refused = await push(withdrawal);
      // A push the upstream refuses: counted, without a type.
      const amountTooLarge = [{ ...withdrawal[0], amount: 100_000_001 }];
      const refusedPush = await siteFetch(`${ORIGIN}/oauth2/par`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: GUNGNIR.clientId,
          authorization_details: JSON.stringify(amountTooLarge),
        }),
      });
      await refusedPush.body?.cancel();
      const journey = new Journey();
      const html = await open(journey, approved);
      await (await approve(journey, html, await authenticator.authenticate(await optionsFor(journey)))).body?.cancel();
      const other = new Journey();
      const shown = await open(other, cancelled);
      await (
        await other.postForm("/operation/cancel", { client_id: GUNGNIR.clientId, operation: shownMark(shown) })
      ).body?.cancel();
      const third = new Journey();
      const page = await open(third, refused);
      const forged = await authenticator.authenticate(await optionsFor(third), { origin: "https://evil.example" });
      await (await approve(third, page, forged)).body?.cancel();
      await (await new Journey().request(entryPath(approved.requestUri))).body?.cancel();
    });
    const eventsOf = (name: string) =>
      logged
        .split("\n")
        .filter((line) => line.includes(`"${name}"`))
        .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>);
    const events = eventsOf("operation_confirmation");
    const brand = GUNGNIR.serviceId;
    expect(eventsOf("operation_pushed").map(({ brand, type, status }) => ({ brand, type, status }))).toEqual([
      ...Array(3).fill({ brand, type: "withdrawal", status: 201 }),
      { brand, type: undefined, status: 400 },
    ]);
    expect(events.map(({ brand, type, outcome }) => ({ brand, type, outcome }))).toEqual([
      { brand, type: "withdrawal", outcome: "shown" },
      { brand, type: "withdrawal", outcome: "approved" },
      { brand, type: "withdrawal", outcome: "shown" },
      { brand, type: "withdrawal", outcome: "cancelled" },
      { brand, type: "withdrawal", outcome: "shown" },
      { brand, type: "withdrawal", outcome: "refused" },
      { brand, type: undefined, outcome: "request_uri_refused" },
    ]);
    // No line of any kind holds the details, the amount, the account or a request_uri.
    for (const secret of [
      "123456",
      "123,456",
      "9876",
      account.bank_name,
      account.branch_name,
      "authorization_details",
      ...requestUris.map((uri) => uri.split(":").at(-1) ?? ""),
    ])
      expect(logged, secret).not.toContain(secret);
  });
});

// docs/operations.md "The temporary alternative": a brand that publishes its move to passkeys (liqueur-lemon) lets
// its customers approve with the password and the code the upstream asks next, each under the same details.
describe("the brand's temporary alternative (operationConfirmation passkeyOrCode)", () => {
  const totpNow = () => new TOTP({ secret: TOTP_SECRET }).generate();

  /** The password form's post, as the page carries it. */
  function postPassword(journey: Journey, html: string, username: string, password = PASSWORD, brand = LEMON) {
    return journey.postForm("/operation/password", {
      client_id: brand.clientId,
      operation: shownMark(html),
      username,
      password,
    });
  }

  /** The code form's post: the second factor's field, or a new device's. */
  function postCode(journey: Journey, html: string, field: "mfaCode" | "code", code: string) {
    return journey.postForm("/operation/code", {
      client_id: LEMON.clientId,
      operation: shownMark(html),
      [field]: code,
    });
  }

  /** The screen after an accepted step: its address, and the page it shows there. */
  async function nextScreen(journey: Journey, response: Response): Promise<string> {
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/operation");
    await response.body?.cancel();
    const screen = await journey.request("/operation");
    expect(screen.status).toBe(200);
    return screen.text();
  }

  it("offers the password form beside the passkey where the brand allows it, and nowhere else", async () => {
    const html = await open(new Journey(), await push(withdrawal, "openid", LEMON));
    expect(html).toContain('action="/operation/password"');
    expect(html).toContain('type="password"');
    expect(html).toContain('data-island="PasskeySignIn"');
    expect(withoutPhraseBreaks(html)).toContain(withoutPhraseBreaks(screens.operation.alternativeHeading));
    expect(html).not.toContain(screens.signIn.passkeyRequired);
    // The passkey brand's screen has none of it, and its form route refuses before anything is asked.
    const journey = new Journey();
    const passkeyOnly = await open(journey, await push(withdrawal));
    expect(passkeyOnly).not.toContain('action="/operation/password"');
    const email = unique("alternative.elsewhere");
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
    await expectModal(await postPassword(journey, passkeyOnly, email, PASSWORD, GUNGNIR), 400, "parameterError");
    expect(await emulator.count(email)).toBe(0);
  });

  it("approves with the password and the app's code, each under the same details: the tokens say acr mfa", async () => {
    const email = unique("alternative.totp");
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
    const pushed = await push(withdrawal, "openid", LEMON);
    const journey = new Journey();
    const logged = await loggedDuring(async () => {
      const html = await open(journey, pushed);
      const codePage = await nextScreen(journey, await postPassword(journey, html, email));
      // The same details above the code; no password and no passkey left on the page.
      expect(detailRows(codePage)).toEqual(detailRows(html));
      expect(codePage).toContain(screens.operation.codeLeads.mfa_totp);
      expect(codePage).toContain('name="mfaCode"');
      expect(codePage).not.toContain('type="password"');
      expect(codePage).not.toContain('data-island="PasskeySignIn"');
      expect(codePage).toContain('action="/operation/cancel"');
      const wrong = await postCode(journey, codePage, "mfaCode", totpNow() === "000000" ? "111111" : "000000");
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain(withoutPhraseBreaks("認証コードが正しくありません"));
      const approved = await postCode(journey, codePage, "mfaCode", totpNow());
      expect(approved.status).toBe(303);
      const { foreign } = await journey.follow(approved);
      expect(`${foreign?.origin}${foreign?.pathname}`).toBe(appRedirectUri(LEMON));
      const tokens = await exchange(foreign?.searchParams.get("code") ?? "", pushed);
      expect(tokens.authorization_details).toEqual(withdrawal);
      expect(tokens).not.toHaveProperty("refresh_token");
      expect(decodeJwt(String(tokens.access_token))).toMatchObject({ acr: "mfa", amr: ["pwd", "otp", "mfa"] });
    });
    expect(journey.has("__Host-operation")).toBe(false);
    // Operators count the approval by brand and type; never the amount, the account or the login ID.
    expect(logged).toMatch(/"event":"operation_confirmation".*"brand":"liqueur-lemon".*"outcome":"approved"/);
    for (const secret of ["123456", "123,456", "****9876", email]) expect(logged).not.toContain(secret);
  });

  it("asks a new device's code after the SMS code, says where it went, and then approves", async () => {
    const email = unique("alternative.device");
    const phone = "+819012345678";
    await emulator.seed({ email, mfa: { sms: phone }, knownDevices: [] });
    const pushed = await push(bankAccountChange, "openid", LEMON);
    const journey = new Journey();
    const html = await open(journey, pushed);
    const smsPage = await nextScreen(journey, await postPassword(journey, html, email));
    expect(smsPage).toContain(withoutPhraseBreaks(screens.operation.codeLeads.mfa_sms));
    const devicePage = await nextScreen(
      journey,
      await postCode(journey, smsPage, "mfaCode", await emulator.latestCode(phone)),
    );
    expect(detailRows(devicePage)).toEqual(detailRows(html));
    // Where the code went, as the upstream masked the address (never the address itself).
    const destination = (await journey.sealedKept("operation")).code?.destination ?? "";
    expect(destination).toBe(`${email[0]}***@example.com`);
    expect(withoutPhraseBreaks(devicePage)).toContain(
      withoutPhraseBreaks(screens.operation.codeLeads.device_confirmation(destination)),
    );
    expect(devicePage).not.toContain(email);
    expect(devicePage).toContain('name="code"');
    const approved = await postCode(journey, devicePage, "code", await emulator.latestCode(email));
    const { foreign } = await journey.follow(approved);
    const tokens = await exchange(foreign?.searchParams.get("code") ?? "", pushed);
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ acr: "mfa", amr: ["pwd", "sms", "mfa"] });
  });

  it("counts the password per login ID (credential class): the sixth in a minute gets 429, from any browser", async () => {
    const email = unique("alternative.flood");
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
    const statuses: number[] = [];
    // Three wrong passwords in each of two browsers, each its own operation and address: one login ID's count.
    for (const _browser of [1, 2]) {
      const journey = new Journey();
      const html = await open(journey, await push(withdrawal, "openid", LEMON));
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await postPassword(journey, html, email, "Wr0ngPassword!");
        await response.body?.cancel();
        statuses.push(response.status);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // Past the period the login ID's next try is let through, and still told as a wrong password.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal, "openid", LEMON));
    await expectModal(await postPassword(journey, html, email, "Wr0ngPassword!"), 401, "loginFailed");
  });

  it("says a wrong password as sign-in does, and that an account without a second factor needs a passkey", async () => {
    const email = unique("alternative.nofactor");
    await emulator.seed({ email, mfa: "none" });
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal, "openid", LEMON));
    const wrong = await expectModal(await postPassword(journey, html, email, "Wr0ngPassword!"), 401, "loginFailed");
    expect(detailRows(wrong)).toHaveLength(2);
    await expectModal(await postPassword(journey, html, email), 403, "operationNeedsSecondFactor");
    // The operation stays: the passkey or the cancel is still there.
    expect((await journey.request("/operation")).status).toBe(200);
  });

  it("goes back to the password under the same details once the code's session is over (five wrong codes)", async () => {
    const email = unique("alternative.spent");
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
    const journey = new Journey();
    const html = await open(journey, await push(withdrawal, "openid", LEMON));
    const codePage = await nextScreen(journey, await postPassword(journey, html, email));
    const wrongCode = totpNow() === "000000" ? "111111" : "000000";
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await postCode(journey, codePage, "mfaCode", wrongCode);
      await wrong.body?.cancel();
      expect(wrong.status).toBe(401);
    }
    // The sixth in a minute is the edge's to refuse (the code class, per session); past the period, the upstream's,
    // which ended the session at the fifth wrong code.
    await expectModal(await postCode(journey, codePage, "mfaCode", totpNow()), 429, "tooManyAttempts");
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    const over = await expectModal(
      await postCode(journey, codePage, "mfaCode", totpNow()),
      401,
      "operationNotApproved",
    );
    expect(over).toContain('action="/operation/password"');
    expect(detailRows(over)).toHaveLength(2);
    expect((await journey.sealedKept("operation")).code).toBeUndefined();
    // The password again, then the right code: approved.
    const again = await nextScreen(journey, await postPassword(journey, html, email));
    expect((await postCode(journey, again, "mfaCode", totpNow())).status).toBe(303);
  });
});
