import fc from "fast-check";
import type { ScreenCase, ScreenState } from "../support/screens";

// Issue 11 fuzzing: every form the screens really show and every query-string route gets arbitrary input
// (Unicode, control characters, huge values, duplicated fields, wrong content types, other origins). Whatever
// comes in, the site must never answer 5xx, never reflect input unescaped, and never leave without its security
// headers. One definition for the workerd sample in `npm test` and for `npm run fuzz` against the local workerd.

/** Sends one request to the site (a path on its origin) without following redirects. */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

export interface FormTarget {
  kind: "form";
  screen: string;
  action: string;
  fields: string[];
  cookie: string;
}

export interface QueryTarget {
  kind: "query";
  path: string;
  params: string[];
  cookie: string;
}

export type Target = FormTarget | QueryTarget;

/** Routes that act on their query without being a screen of the list (SPEC §2 entry, callback, consent, logout). */
export function actingRoutes(serviceId: string): Array<{ path: string; params: string[] }> {
  const app = ["client_id", "view", "app_url", "callback_path", "state", "scope", "code_challenge"];
  const appOptional = ["code_challenge_method", "prompt", "hashed_user_id", "autoFillUserName", "sign_in_mode"];
  return [
    { path: "/", params: [...app, ...appOptional, "login_challenge"] },
    { path: `/${serviceId}/auth`, params: [...app, ...appOptional] },
    { path: "/callback", params: ["code", "state", "scope", "client_id", "error"] },
    { path: `/${serviceId}/consent`, params: ["consent_challenge", "client_id", "scope"] },
    { path: "/logout", params: ["client_id"] },
    { path: "/restart", params: [] },
    { path: `/${serviceId}/changeEmail`, params: ["client_id", "result"] },
  ];
}

const FORM_TAG = /<form\b([^>]*)>([\s\S]*?)<\/form>/g;
const attribute = (attributes: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`).exec(attributes)?.[1]?.replace(/&amp;/g, "&");

/**
 * What the site exposes: each screen's POST forms (action and field names, with the screen's journey state as
 * cookies, so the fuzz reaches the handlers, not only the state check) and each screen's query names.
 */
export async function discoverTargets(
  send: Send,
  screens: ScreenCase[],
  cookieFor: (state: ScreenState) => Promise<string>,
  serviceId: string,
): Promise<Target[]> {
  const targets: Target[] = [];
  for (const screen of screens) {
    const cookie = await cookieFor(screen.state);
    const html = await (await send(screen.path, { headers: { Cookie: cookie } })).text();
    for (const [, attributes = "", inner = ""] of html.matchAll(FORM_TAG)) {
      if (attribute(attributes, "method") !== "post") continue;
      const action = attribute(attributes, "action") ?? screen.path;
      const fields = [...inner.matchAll(/\sname="([^"]+)"/g)].map(([, name = ""]) => name);
      targets.push({ kind: "form", screen: screen.name, action, fields: [...new Set(fields)], cookie });
    }
    const url = new URL(screen.path, "https://site.invalid");
    targets.push({ kind: "query", path: url.pathname, params: [...url.searchParams.keys()], cookie });
  }
  for (const route of actingRoutes(serviceId)) targets.push({ kind: "query", ...route, cookie: "" });
  return targets;
}

/** Input that can only come from the fuzzer: seeing it raw in a response is a reflection. */
const CANARY = "<fz-canary>";

const ordinaryValue = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map((text) => `${text}${CANARY}"'&`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "\r\n\t",
      "<script>alert(1)</script>",
      "javascript:alert(1)",
      "%00%0d%0a",
      "../../etc/passwd",
      "０９０１２３４５６７８",
      "a@b.c",
      "Passw0rd!",
      "123456",
      "09012345678",
      "https://evil.example/",
      "\uD800",
      "😀".repeat(300),
    ),
  },
);
/** Huge values only in bodies: the platform refuses a URL over 16 KB (414) before any worker runs. */
const hugeValue = fc.integer({ min: 1_000, max: 40_000 }).map((length) => "A".repeat(length));
const MAX_URL_LENGTH = 8 * 1024;

const CONTENT_TYPES = ["form", "multipart", "json", "text", "none"] as const;

function fieldsArbitrary(known: string[], inBody: boolean) {
  const value = inBody
    ? fc.oneof({ weight: 10, arbitrary: ordinaryValue }, { weight: 1, arbitrary: hugeValue })
    : ordinaryValue;
  const name = known.length
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...known) },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      )
    : fc.string({ maxLength: 12 });
  // Names repeat freely: duplicated fields are part of the input.
  return fc.array(fc.tuple(name, value), { maxLength: 8 });
}

export interface FuzzCase {
  target: Target;
  fields: Array<[string, string]>;
  contentType: (typeof CONTENT_TYPES)[number];
  withState: boolean;
  origin: "site" | "other" | "none";
  address: string;
}

export function caseArbitrary(targets: Target[]): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...targets).chain((target) =>
    fc.record({
      target: fc.constant(target),
      fields: target.kind === "form" ? fieldsArbitrary(target.fields, true) : fieldsArbitrary(target.params, false),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      withState: fc.boolean(),
      origin: fc.constantFrom("site", "site", "other", "none"),
      address: fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `198.18.${a}.${b}`),
    }),
  );
}

function body(
  fields: Array<[string, string]>,
  contentType: FuzzCase["contentType"],
): { body: BodyInit; type?: string } {
  switch (contentType) {
    case "multipart": {
      const form = new FormData();
      for (const [name, text] of fields) form.append(name, text);
      return { body: form };
    }
    case "json":
      return { body: JSON.stringify(Object.fromEntries(fields)), type: "application/json" };
    case "text":
      return { body: fields.map(([name, text]) => `${name}=${text}`).join("\n"), type: "text/plain" };
    case "none":
      return { body: new URLSearchParams(fields) };
    case "form":
      return { body: new URLSearchParams(fields), type: "application/x-www-form-urlencoded" };
  }
}

/** The request a case makes; the site's own origin is `siteOrigin`. */
export function requestOf(fuzz: FuzzCase, siteOrigin: string): { path: string; init: RequestInit } {
  const headers: Record<string, string> = { "CF-Connecting-IP": fuzz.address };
  if (fuzz.withState && fuzz.target.cookie) headers.Cookie = fuzz.target.cookie;
  if (fuzz.target.kind === "query") {
    const query = new URLSearchParams();
    for (const [name, text] of fuzz.fields) {
      query.append(name, text);
      if (`${fuzz.target.path}?${query}`.length > MAX_URL_LENGTH) query.delete(name, text);
    }
    return { path: `${fuzz.target.path}?${query}`, init: { headers, redirect: "manual" } };
  }
  if (fuzz.origin !== "none") headers.Origin = fuzz.origin === "site" ? siteOrigin : "https://evil.example";
  const encoded = body(fuzz.fields, fuzz.contentType);
  if (encoded.type) headers["Content-Type"] = encoded.type;
  return { path: fuzz.target.action, init: { method: "POST", body: encoded.body, headers, redirect: "manual" } };
}

const REQUIRED_HEADERS = [
  "content-security-policy",
  "strict-transport-security",
  "x-content-type-options",
  "referrer-policy",
  "x-frame-options",
  "cache-control",
];

/** What is wrong with a response to fuzzed input; undefined when nothing is. */
export async function problemWith(response: Response): Promise<string | undefined> {
  const text = await response.text();
  if (response.status >= 500)
    return `answered ${response.status}${response.headers.has("x-request-id") ? "" : " (not from the worker: no X-Request-Id)"}`;
  const missing = REQUIRED_HEADERS.filter((name) => !response.headers.has(name));
  if (missing.length) return `answered without ${missing.join(", ")}`;
  if (text.includes(CANARY)) return "reflected the input unescaped";
  return undefined;
}

/** The property: one fuzzed request, one response without a problem. */
export function siteProperty(targets: Target[], send: Send, siteOrigin: string) {
  return fc.asyncProperty(caseArbitrary(targets), async (fuzz) => {
    const { path, init } = requestOf(fuzz, siteOrigin);
    const problem = await problemWith(await send(path, init));
    if (!problem) return;
    const sizes = fuzz.fields.map(([name, text]) => `${name.length}:${text.length}`).join(",");
    const sent = `${fuzz.contentType} body, fields (name:value lengths) ${sizes}, origin ${fuzz.origin}, state ${fuzz.withState}`;
    throw new Error(`${init.method ?? "GET"} ${path.slice(0, 200)} ${problem} [${sent}]`);
  });
}
