import { type Context, Hono } from "hono";
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import {
  type AuthorizationDetails,
  type BankAccount,
  canonicalJson,
  WITHDRAWAL_MAX_YEN,
} from "../../forms/authorizationDetails";
import {
  findClient,
  noticeBrand,
  type OAuthClient,
  sampleAppCallbackPath,
  sampleAppClientIds,
} from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { sha256Base64url } from "../crypto/digest";
import { randomToken } from "../crypto/randomValues";
import type { EmulatorEnv } from "../env";
import type { TicketKinds } from "../state/tickets";
import type { EmulatorHono } from "./context";
import { escapeHtml } from "./outboxPage";
import { formText } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

// docs/operations.md: a sample of a brand's app for `npm run dev`, playing the app's server of gungnir-aurora (a
// passkey only) or liqueur-lemon (a passkey, or the password and a code: "The temporary alternative"). Its form takes
// the app and an amount; it pushes the withdrawal (RFC 9126 with RFC 9396 authorization_details), sends the browser to
// the site's entry with client_id and request_uri alone, and when the code comes back to its page, exchanges it and
// shows what the tokens say, with the checks an app's server makes before it acts ("What the app's server must check").
// An app's server calls the site's origin (the narrow proxy passes /oauth2/par and /oauth2/token here); living in the
// emulator, this page calls the same endpoints in-process. Everything it shows is escaped.

export const SAMPLE_APP_PATH = "/__emulator/sample-app";

/** The sample account the withdrawal goes to. */
export const sampleAccount: BankAccount = {
  bank_name: "カザハナ銀行",
  branch_name: "本店",
  account_type: "普通",
  account_number: "****1234",
};

const accountText = ({ bank_name, branch_name, account_type, account_number }: BankAccount) =>
  `${bank_name} ${branch_name} ${account_type} ${account_number}`;
const yen = (amount: number) => `${amount.toLocaleString("en")}円`;

/** The emulator's own routes, called as the app's server would call them at the site's origin. */
type Emulator = { fetch(request: Request, env: EmulatorEnv): Response | Promise<Response> };

/** A call to the emulator's own endpoint at the site's origin (its forwarding headers), in this request. */
async function asAppServer(emulator: Emulator, c: EmulatorContext, path: string, init: RequestInit = {}) {
  const site = new URL(c.var.site);
  const headers = new Headers(init.headers);
  headers.set("X-Forwarded-Proto", site.protocol.replace(":", ""));
  headers.set("X-Forwarded-Host", site.host);
  return emulator.fetch(new Request(`${site.origin}${path}`, { ...init, headers, redirect: "manual" }), c.env);
}

/** A page of the sample app. A failure is 400: behind the site a 5xx page would be the site's own error modal. */
function page(c: EmulatorContext, title: string, body: string, status: 200 | 400 = 200): Response {
  c.header("cache-control", "no-store");
  return c.html(
    `<!doctype html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}（サンプルアプリ）</title>
<link rel="stylesheet" href="/__emulator/outbox.css">
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`,
    status,
  );
}

/** A client the sample app plays the app of (contract/clients.ts), by the ID the form sent; anything else is none. */
function sampleClient(clientId: unknown): OAuthClient | undefined {
  return typeof clientId === "string" && sampleAppClientIds.includes(clientId) ? findClient(clientId) : undefined;
}

const alternativeAllowed = (client: OAuthClient) => client.operationConfirmation === "passkeyOrCode";

/** How the form names a client: its brand (from the brand data), and how that brand's operations are approved. */
const clientLabel = (client: OAuthClient) =>
  `${noticeBrand(client.id).name}のアプリ（${alternativeAllowed(client) ? "パスキー、またはパスワードと認証コードで承認" : "パスキーで承認"}）`;

/**
 * The form: the app chosen and the amount typed (kept when refused), the sample account, and why it was refused, if
 * it was. An unknown app is shown as the default.
 */
function formPage(c: EmulatorContext, amount = "100000", clientId?: string, refusal?: string): Response {
  const chosen = sampleClient(clientId)?.id ?? sampleAppClientIds[0];
  const options = sampleAppClientIds.flatMap((id) => {
    const client = findClient(id);
    if (client === undefined) return [];
    const selected = id === chosen ? " selected" : "";
    return [`<option value="${escapeHtml(id)}"${selected}>${escapeHtml(clientLabel(client))}</option>`];
  });
  const refused = refusal === undefined ? "" : `<p class="error" role="alert">${escapeHtml(refusal)}</p>\n`;
  return page(
    c,
    "出金のお申し込み",
    `<p>選んだブランドのアプリのサーバーとして出金を申し込みます。出金の内容をサインインサイトに送り（RFC 9126、RFC 9396）、
確認画面に進みます。パスキーで（ブランドが認めていれば、パスワードと認証コードでも）承認すると、このページに戻って結果を表示します。</p>
${refused}<form method="post" action="${SAMPLE_APP_PATH}">
<p><label>アプリ <select name="client">
${options.join("\n")}
</select></label></p>
<p>出金先: ${escapeHtml(accountText(sampleAccount))}</p>
<p><label>出金額（円） <input name="amount" inputmode="numeric" autocomplete="off" required value="${escapeHtml(amount)}"></label></p>
<p><button type="submit">申し込む</button></p>
</form>`,
    refusal === undefined ? 200 : 400,
  );
}

/** Whole yen as typed, with or without thousands separators; else undefined. */
function amountOf(typed: string): number | undefined {
  const digits = typed.trim().replace(/,/g, "");
  return /^[0-9]{1,12}$/.test(digits) ? Number(digits) : undefined;
}

/** What an OAuth error response says, as text (never trusted as HTML). */
async function oauthError(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: unknown; error_description?: unknown };
  return `${String(body.error ?? response.status)}: ${String(body.error_description ?? "")}`;
}

/**
 * The push as the chosen client (one of the sample app's, else refused): the withdrawal of `amount` to the sample
 * account, its state kept with the verifier and the client; then that brand's entry of the site.
 */
async function push(emulator: Emulator, c: EmulatorContext): Promise<Response> {
  const form = new URLSearchParams(await formText(c.req.raw));
  const typed = form.get("amount") ?? "";
  const client = sampleClient(form.get("client"));
  if (client === undefined) return formPage(c, typed, undefined, "アプリを一覧から選んでください。");
  const amount = amountOf(typed);
  if (amount === undefined)
    return formPage(c, typed, client.id, `出金額は半角数字で入力してください（1〜${yen(WITHDRAWAL_MAX_YEN)}）。`);
  const details: AuthorizationDetails = [{ type: "withdrawal", amount, currency: "JPY", destination: sampleAccount }];
  const codeVerifier = randomToken();
  const state = randomToken();
  const redirectUri = `${c.var.site}${sampleAppCallbackPath}`;
  const pushed = await asAppServer(emulator, c, "/oauth2/par", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: client.id,
      response_type: "code",
      redirect_uri: redirectUri,
      scope: "openid",
      state,
      code_challenge: await sha256Base64url(codeVerifier),
      code_challenge_method: "S256",
      authorization_details: JSON.stringify(details),
    }),
  });
  if (pushed.status !== 201)
    return formPage(c, typed, client.id, `申し込みが受け付けられませんでした（${await oauthError(pushed)}）。`);
  const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
  const { tickets } = c.var.services;
  const kept: TicketKinds["sample_app_push"] = { codeVerifier, details, redirectUri, clientId: client.id };
  tickets.issue("sample_app_push", state, kept, c.var.now + lifetimes.sampleAppPush);
  const entry = new URL(`${c.var.site}/${client.serviceId}/auth`);
  entry.search = new URLSearchParams({ client_id: client.id, request_uri: requestUri }).toString();
  return c.redirect(entry.toString(), 303);
}

/**
 * The access token, verified as the client's app's server does: signature against the JWKS, issuer, audience (the
 * client pushed as), expiry.
 */
async function verifiedClaims(
  emulator: Emulator,
  c: EmulatorContext,
  token: string,
  client: OAuthClient,
): Promise<JWTPayload> {
  const jwks = (await (await asAppServer(emulator, c, "/.well-known/jwks.json")).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: c.var.site,
    audience: client.id,
    algorithms: ["ES256"],
    currentDate: new Date(c.var.now),
  });
  return payload;
}

const yesNo = (holds: boolean) => (holds ? "はい" : "いいえ");

/**
 * docs/operations.md, "What the app's server must check", item 4, for the client's brand: `acr` `phr`; `mfa` (with
 * `amr` `otp` or `sms`) too only where the brand allows the temporary alternative. The label says which.
 */
export function acrCheck(client: OAuthClient, claims: JWTPayload): [label: string, holds: boolean] {
  const phr = claims.acr === "phr";
  if (!alternativeAllowed(client)) return ["acr が phr（フィッシング耐性のある認証）", phr];
  const amr = Array.isArray(claims.amr) ? claims.amr : [];
  const byCode = claims.acr === "mfa" && (amr.includes("otp") || amr.includes("sms"));
  return [
    "acr が phr（フィッシング耐性のある認証）、またはブランドが認める代替手段の mfa（amr に otp か sms）",
    phr || byCode,
  ];
}

/**
 * The redirect URI: the push of this state (once), its code exchanged as the client it was pushed as, what the tokens
 * say, and the checks.
 */
async function callback(emulator: Emulator, c: EmulatorContext): Promise<Response> {
  const query = new URL(c.req.url).searchParams;
  const state = query.get("state") ?? "";
  const { tickets } = c.var.services;
  const found = state === "" ? { status: "missing" as const } : tickets.find("sample_app_push", state, c.var.now);
  const again = `<p><a href="${SAMPLE_APP_PATH}">もう一度申し込む</a></p>`;
  const pushed = found.status === "valid" ? found.data : undefined;
  const client = sampleClient(pushed?.clientId);
  if (pushed === undefined || client === undefined)
    return page(
      c,
      "お申し込みが見つかりません",
      `<p>このお申し込みは、結果を表示済みか、期限が切れたか、見つかりません（state: ${escapeHtml(state)}）。</p>\n${again}`,
      400,
    );
  tickets.consume("sample_app_push", state, c.var.now);
  const error = query.get("error");
  const code = query.get("code");
  if (error !== null || code === null)
    return page(
      c,
      "出金は承認されませんでした",
      `<p>サインインサイトから戻りました: ${escapeHtml(error ?? "no code")}${
        query.has("error_description") ? `（${escapeHtml(query.get("error_description") ?? "")}）` : ""
      }</p>\n${again}`,
    );
  const exchanged = await asAppServer(emulator, c, "/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: pushed.redirectUri,
      client_id: client.id,
      code_verifier: pushed.codeVerifier,
    }),
  });
  if (exchanged.status !== 200)
    return page(
      c,
      "トークンを受け取れませんでした",
      `<p>${escapeHtml(await oauthError(exchanged))}</p>\n${again}`,
      400,
    );
  const tokens = (await exchanged.json()) as {
    access_token: string;
    refresh_token?: string;
    authorization_details?: unknown;
  };
  let claims: JWTPayload;
  try {
    claims = await verifiedClaims(emulator, c, tokens.access_token, client);
  } catch (failure) {
    const why = failure instanceof Error ? failure.message : String(failure);
    return page(c, "アクセストークンを検証できませんでした", `<p>${escapeHtml(why)}</p>\n${again}`, 400);
  }
  const asPushed = canonicalJson(pushed.details);
  const sameDetails =
    canonicalJson(tokens.authorization_details as AuthorizationDetails) === asPushed &&
    canonicalJson(claims.authorization_details as AuthorizationDetails) === asPushed;
  const refreshToken = tokens.refresh_token !== undefined;
  const shown = JSON.stringify(tokens.authorization_details ?? null, null, 2);
  const amr = Array.isArray(claims.amr) ? claims.amr.map(String).join(" ") : "なし";
  const rows: [string, string, string][] = [
    ["client", "アプリ", escapeHtml(clientLabel(client))],
    ["authorization-details", "authorization_details（トークン応答）", `<pre>${escapeHtml(shown)}</pre>`],
    ["acr", "acr（アクセストークン）", escapeHtml(String(claims.acr ?? "なし"))],
    ["amr", "amr（アクセストークン）", escapeHtml(amr)],
    ["refresh-token", "リフレッシュトークン", refreshToken ? "あり" : "なし"],
  ];
  const checks: [string, boolean][] = [
    ["署名、iss、aud、exp を検証した", true],
    ["authorization_details が申し込んだ内容と同じ", sameDetails],
    acrCheck(client, claims),
    ["リフレッシュトークンがない", !refreshToken],
  ];
  return page(
    c,
    "出金の承認を受け取りました",
    `<dl>
${rows.map(([id, term, value]) => `<dt>${term}</dt><dd id="${id}">${value}</dd>`).join("\n")}
</dl>
<h2>アプリのサーバーの確認（docs/operations.md）</h2>
<ul>
${checks.map(([check, holds]) => `<li>${check}: ${yesNo(holds)}</li>`).join("\n")}
</ul>
${again}`,
  );
}

/** The sample app's routes; `emulator` is the emulator's own app, which it calls as an app's server would. */
export function sampleApp(emulator: Emulator): Hono<EmulatorHono> {
  const routes = new Hono<EmulatorHono>();
  routes.get(SAMPLE_APP_PATH, (c) => formPage(c));
  routes.post(SAMPLE_APP_PATH, (c) => push(emulator, c));
  routes.get(sampleAppCallbackPath, (c) => callback(emulator, c));
  return routes;
}
