import fc from "fast-check";
import type { RouteEntry } from "../../worker/routeKinds";
import type { ScreenCase, ScreenState } from "../support/screens";

// Fuzzing: every route of the table (worker/routes.tsx), with the fields its schemas and its screen's form name,
// gets arbitrary input (Unicode, control characters, huge values, duplicated fields, wrong content types, other
// origins). Whatever comes in, the site must never answer 5xx, never reflect input unescaped, and never leave without
// its security headers. One definition for the workerd sample in `npm test` and for `npm run fuzz` against the local
// workerd.

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

/** What the fuzz reads of a row of the route table (worker/routes.tsx): its method, path and schemas. */
export type FuzzRoute = Pick<RouteEntry, "method" | "path" | "name" | "form" | "query">;

/**
 * Rows of the route table the fuzz leaves alone, by name, with the reason. The emulator's developer endpoints
 * (dev only, never deployed) set the emulator's faults and clock: fuzzed, they would make the upstream fail on
 * purpose and every later case with it.
 */
export const NOT_FUZZED: Readonly<Record<string, string>> = {
  emulatorDev: "the emulator's developer endpoints (dev only) set its faults and clock",
};

/** A request path for a route's pattern: the brand's id for `:serviceId`, a made-up segment for the rest. */
export function concretePath(pattern: string, serviceId: string): string {
  const segments = pattern.split("/").map((segment) => {
    if (segment === ":serviceId") return serviceId;
    if (segment === "*" || segment.startsWith(":")) return "fuzz";
    return segment;
  });
  const path = segments.join("/");
  return path.startsWith("/") ? path : `/${path}`;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  options?: Schema[];
  in?: Schema;
  left?: Schema;
  right?: Schema;
  innerType?: Schema;
}
type Schema = { _zod: { def: SchemaDef } };

/** The top-level names a (zod) schema reads: an object's keys, through unions, pipes, intersections and wrappers. */
export function schemaKeys(schema: unknown): string[] {
  const def = (schema as Schema | undefined)?._zod?.def;
  if (!def) return [];
  if (def.shape) return Object.keys(def.shape);
  const parts = [...(def.options ?? []), def.in, def.left, def.right, def.innerType];
  return [...new Set(parts.flatMap((part) => (part ? schemaKeys(part) : [])))];
}

const FORM_TAG = /<form\b([^>]*)>([\s\S]*?)<\/form>/g;
const attribute = (attributes: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`).exec(attributes)?.[1]?.replace(/&amp;/g, "&");

/** Whether `path` is `prefix` or under it, segment by segment. */
const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);

export interface TargetSources {
  /** The route table: every row is a target (POST a form, GET a query, ALL both) unless NOT_FUZZED names it. */
  routes: readonly FuzzRoute[];
  /** The screens, each with the journey state it renders with: the forms they show and the state to post them with. */
  screens: ScreenCase[];
  cookieFor: (state: ScreenState) => Promise<string>;
  serviceId: string;
}

/**
 * What the site exposes. The route table drives it: every POST row is a form target, every GET row a query target
 * (ALL both), their names from the row's schemas. The screens add what the table cannot say: the field names their
 * forms show (an island's hidden fields among them), and the journey state as cookies, so that the fuzz reaches the
 * handlers, not only the state check. A row no screen shows is sent with the state of the screen nearest its path.
 */
export async function discoverTargets(send: Send, sources: TargetSources): Promise<Target[]> {
  const { routes, screens, cookieFor, serviceId } = sources;
  const targets: Target[] = [];
  const screenCookies: Array<{ path: string; cookie: string }> = [];
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
    screenCookies.push({ path: url.pathname, cookie });
  }
  // The state of the screen whose path is the longest prefix of the route's (the sign-in screen's for its passkey POST).
  const nearestCookie = (path: string) =>
    screenCookies.filter((screen) => under(path, screen.path)).sort((a, b) => b.path.length - a.path.length)[0]
      ?.cookie ?? "";
  const pathOf = (target: Target) =>
    new URL(target.kind === "form" ? target.action : target.path, "https://site.invalid").pathname;
  for (const route of routes) {
    if (route.name in NOT_FUZZED) continue;
    const path = concretePath(route.path, serviceId);
    if (route.method !== "GET") {
      const fields = schemaKeys(route.form?.({}));
      const shown = targets.filter((target) => target.kind === "form" && pathOf(target) === path) as FormTarget[];
      for (const target of shown) target.fields = [...new Set([...target.fields, ...fields])];
      if (!shown.length)
        targets.push({
          kind: "form",
          screen: `route ${route.name}`,
          action: path,
          fields,
          cookie: nearestCookie(path),
        });
    }
    if (route.method !== "POST") {
      const params = schemaKeys(route.query);
      const shown = targets.filter((target) => target.kind === "query" && pathOf(target) === path) as QueryTarget[];
      for (const target of shown) target.params = [...new Set([...target.params, ...params])];
      if (!shown.length) targets.push({ kind: "query", path, params, cookie: nearestCookie(path) });
    }
  }
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

const BOUNDARY = "fuzz-boundary-7b1d0c";

/**
 * A multipart body written out as a browser writes it (the HTML form encoding: `"`, CR and LF in a name escaped, all
 * else as it is), not by FormData: workerd's FormData refuses to write some names a browser sends (one ending in a
 * backslash), so the workerd sample could not send them, and a new route, which changes the sample's cases, would
 * meet that as a failure of the harness.
 */
function multipart(fields: Array<[string, string]>): string {
  const escaped = (name: string) => name.replaceAll('"', "%22").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
  const parts = fields.map(
    ([name, text]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${escaped(name)}"\r\n\r\n${text}\r\n`,
  );
  return `${parts.join("")}--${BOUNDARY}--\r\n`;
}

function body(
  fields: Array<[string, string]>,
  contentType: FuzzCase["contentType"],
): { body: BodyInit; type?: string } {
  switch (contentType) {
    case "multipart":
      return { body: multipart(fields), type: `multipart/form-data; boundary=${BOUNDARY}` };
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
