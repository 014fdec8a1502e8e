import { describe, expect, it } from "vitest";
import { screens } from "../../messages/ja";
import type { RouteEntry } from "../../worker/routeKinds";
import { routeTable } from "../../worker/routes";
import routesSource from "../../worker/routes.tsx?raw";
import type { SealedCookieName } from "../../worker/session/cookies";
import { concretePath, schemaKeys } from "../fuzz/fuzzing";
import { expectModal } from "../support/expectations";
import { screenCases } from "../support/screens";
import { GUNGNIR } from "../support/vocabulary";
import { loggedDuring, ORIGIN, openScreen, postForm, sealedCookie, siteFetch } from "./helpers";

// Every form on every screen posts to a route of the one route table (architecture §2). Each screen is opened as
// a browser gets it and must render (its status and its text): a screen that broke would show no forms and prove
// nothing. A screen either posts at least one form or is named below as one without a form.

/** Screens that post no form: the parameter problems, the plain error pages and the result pages (a reset mail
 * sent, an e-mail change's outcome), whose only way on is a link. */
const WITHOUT_FORMS = new Set([
  "entry-parameter-error",
  "callback-parameter-error",
  "error",
  "not-found",
  "reset-password-send-mail",
  "change-email-result-sent",
  "change-email-result-completed",
  "change-email-result-invalid",
  "change-email-result-error",
]);

function pattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+")}$`);
}

/** The page route of the table that answers a POST to this path (the proxy and the not-found row aside). */
function postRouteFor(path: string) {
  return routeTable.find(
    (route) => route.method === "POST" && route.surface === "page" && pattern(route.path).test(path),
  );
}

function forms(html: string): Array<{ method: string; action: string }> {
  const own = [...html.matchAll(/<form\b([^>]*)>/g)].map(([, attributes = ""]) => ({
    method: /\smethod="([^"]*)"/.exec(attributes)?.[1] ?? "get",
    action: (/\saction="([^"]*)"/.exec(attributes)?.[1] ?? "").replace(/&amp;/g, "&"),
  }));
  // A button may post its form elsewhere (formaction): that target needs a route too.
  const buttons = [...html.matchAll(/<button\b[^>]*\sformaction="([^"]*)"/g)].map(([, action = ""]) => ({
    method: "post",
    action: action.replace(/&amp;/g, "&"),
  }));
  return [...own, ...buttons];
}

describe("every form posts to a route of the route table", () => {
  const cases = screenCases(GUNGNIR).map((screen) => [screen.name, screen] as const);

  it("names only screens that exist as screens without forms", () => {
    const names = new Set(cases.map(([name]) => name));
    for (const name of WITHOUT_FORMS) expect(names.has(name), `${name} is no screen`).toBe(true);
  });

  it.each(cases)("%s", async (name, screen) => {
    const response = await openScreen(screen, GUNGNIR);
    expect(response.status, `${name} did not render`).toBe(screen.status);
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    const posted: string[] = [];
    for (const form of forms(html)) {
      // Closable modals close with a dialog-method form; it never reaches the worker.
      if (form.method === "dialog") continue;
      expect(form.method, `a form on ${name}`).toBe("post");
      const path = new URL(form.action, "https://site.test").pathname;
      expect(postRouteFor(path), `${name} posts to ${path}, which no route answers`).toBeDefined();
      posted.push(path);
    }
    if (WITHOUT_FORMS.has(name)) expect(posted, `${name} posts a form now: take it off WITHOUT_FORMS`).toEqual([]);
    else expect(posted.length, `${name} posts no form`).toBeGreaterThan(0);
    // And the site answers each of them: an empty form from a browser without the journey's cookies is refused by
    // the route itself, never answered by the not-found page.
    for (const path of new Set(posted)) {
      const answer = await postForm(path, {});
      const page = await answer.text();
      expect(answer.status, `POST ${path}`).not.toBe(404);
      expect(page, `POST ${path}`).not.toContain(screens.notFound.title);
    }
  });

  it("knows the difference between a route and no route (the check itself)", () => {
    expect(postRouteFor("/signIn")?.name).toBe("signIn");
    expect(postRouteFor("/gungnir-aurora/consent")?.name).toBe("consent");
    expect(postRouteFor("/no/such/form")).toBeUndefined();
  });
});

// architecture §3/§8: every form row of the route table (kind `form`, routeKinds.tsx) refuses a POST from another
// site (hono/csrf in worker/index.tsx: 403) and a body that is no form (formBodyOnly: 415), before any handler of
// the row runs: the error page's modal, and no upstream call in the request's log line. The rows come from the table,
// so a new form is covered without a hand edit here.

/** The table's form rows: the rows `form(…)` made, the only ones that carry a field schema. */
const formRows: RouteEntry[] = routeTable.filter((route) => route.form !== undefined);

/** Each form row as it is posted: its path with the brand's id for `:serviceId`, and the row. */
const formCases = formRows.map((route) => [concretePath(route.path, GUNGNIR.serviceId), route] as const);

/**
 * The journey state a browser holds when it posts `path`: the state of the screen whose path is the longest prefix
 * of it (the form's own screen, or the screen it belongs to), sealed, with the brand's cookie. With it and the
 * fields' values below, a POST the guards let through goes on past the state check and the fields' rules, and for
 * most rows (the account forms, sign-in and sign-up steps, consent, sign-out, the passkey forms) to the upstream,
 * which its log line would show.
 */
async function journeyCookie(path: string): Promise<string> {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  const screen = screenCases(GUNGNIR)
    .map((candidate) => ({ ...candidate, path: new URL(candidate.path, ORIGIN).pathname }))
    .filter((candidate) => candidate.path !== "/" && under(candidate.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
  const sealed = await Promise.all(
    Object.entries(screen?.state ?? {}).map(([which, value]) =>
      sealedCookie(which as SealedCookieName, value as never),
    ),
  );
  return [...sealed, `__Host-service=${GUNGNIR.serviceId}`].join("; ");
}

interface RequestLine {
  event: string;
  route?: string;
  path?: string;
  status?: number;
  upstream?: Array<{ call: string }>;
}

/** The request's own log line (worker/middleware/requestLog.ts) among the lines written while `send` ran. */
async function answeredWithLog(path: string, send: () => Promise<Response>) {
  let response: Response | undefined;
  let html = "";
  const logged = await loggedDuring(async () => {
    response = await send();
    html = await response.clone().text();
  });
  const lines = logged
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as RequestLine)
    .filter((line) => line.event === "request" && line.path === path);
  expect(lines, `one request line for ${path}`).toHaveLength(1);
  return { response: response as Response, html, line: lines[0] as RequestLine };
}

const ANOTHER_SITE = "https://evil.example";
/** A POST another site's page makes: by Fetch Metadata, by an Origin alone (no Sec-Fetch-Site), and `Origin: null`
 * as a page under `no-referrer` sends it (the reset link's page once was: docs/browsers.md). */
const crossSite: Array<[string, Record<string, string>]> = [
  ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site", Origin: ANOTHER_SITE }],
  ["another Origin, no Fetch Metadata", { Origin: ANOTHER_SITE }],
  ["Origin: null, no Fetch Metadata", { Origin: "null" }],
];
/** A body from the site's own origin that is no form: JSON, plain text, none named (bytes: no type by default). */
const notForms: Array<[string, Record<string, string>, BodyInit]> = [
  ["application/json", { "Content-Type": "application/json" }, JSON.stringify({ username: "a", password: "b" })],
  ["text/plain", { "Content-Type": "text/plain;charset=UTF-8" }, "username=a&password=b"],
  ["no Content-Type", {}, new TextEncoder().encode("username=a&password=b")],
];

/** Values the shared rules take (forms/fields.ts), by field name; a field not named here gets "a". */
const FIELD_VALUES: Record<string, string> = {
  client_id: GUNGNIR.clientId,
  email: "someone@example.com",
  newEmail: "someone.else@example.com",
  username: "someone@example.com",
  password: "Passw0rd!kasane",
  currentPassword: "Passw0rd!kasane",
  newPassword: "N3wPassw0rd!kasane",
  code: "123456",
  mfaCode: "123456",
  mfaOtpCode: "123456",
  phoneNumber: "09012345678",
};

/** The row's form as a browser posts it: every field its rules name, each with a value. */
function formOf(route: RouteEntry): URLSearchParams {
  return new URLSearchParams(schemaKeys(route.form?.({})).map((name) => [name, FIELD_VALUES[name] ?? "a"]));
}

async function post(path: string, headers: Record<string, string>, body: BodyInit) {
  const request = new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { Cookie: await journeyCookie(path), ...headers },
    body,
    redirect: "manual",
  });
  return siteFetch(request);
}

describe("every form row of the route table refuses another site and a body that is no form", () => {
  it("takes every form row of the table, sends what it says, and sees an upstream call (the check itself)", async () => {
    // As many rows as the table's source calls `form(` (an empty or shortened list would pass everything below).
    const formCalls = routesSource.match(/^\s*form\(/gm) ?? [];
    expect(formCalls.length).toBeGreaterThan(30);
    expect(formRows).toHaveLength(formCalls.length);
    for (const route of formRows) {
      expect(route.method, route.path).toBe("POST");
      expect(route.surface, route.path).toBe("page");
    }
    const paths = formRows.map((route) => route.path);
    for (const path of ["/signIn", "/signUp/checkEmail", "/:serviceId/forgotPassword", "/changePassword", "/logout"])
      expect(paths).toContain(path);
    expect(concretePath("/:serviceId/forgotPassword", GUNGNIR.serviceId)).toBe(`/${GUNGNIR.serviceId}/forgotPassword`);
    // The body said to have no type goes out without one (a string body would be text/plain).
    const [, , untyped] = notForms.find(([name]) => name === "no Content-Type") ?? [];
    expect(new Request(ORIGIN, { method: "POST", body: untyped ?? null }).headers.has("Content-Type")).toBe(false);
    // A form the guards let through, from the site's own page, shows its upstream call in the same log line.
    const email = `form-rows.${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { response, line } = await answeredWithLog("/resetPassword", () =>
      post("/resetPassword", { Origin: ORIGIN }, new URLSearchParams({ client_id: GUNGNIR.clientId, email })),
    );
    await response.body?.cancel();
    expect(line.route).toBe("resetPassword");
    expect(line.upstream?.length).toBeGreaterThan(0);
  });

  describe.each(formCases)("POST %s", (path, route) => {
    it.each(crossSite)("from another site (%s): 403 with the error modal, no upstream call", async (_, headers) => {
      const { response, html, line } = await answeredWithLog(path, () =>
        post(path, { "Content-Type": "application/x-www-form-urlencoded", ...headers }, formOf(route)),
      );
      expect(line.route).toBe(route.name);
      expect(line.upstream, "the upstream calls of the refused POST").toEqual([]);
      await expectModal(response, 403, "unexpectedError");
      expect(response.headers.get("Location")).toBeNull();
      expect(html).not.toMatch(/at .*\.(ts|js):\d+/);
    });

    it.each(notForms)("with a body of %s: 415 with the error modal, no upstream call", async (_, headers, body) => {
      const own = { Origin: ORIGIN, "Sec-Fetch-Site": "same-origin", ...headers };
      const { response, line } = await answeredWithLog(path, () => post(path, own, body));
      expect(line.route).toBe(route.name);
      expect(line.upstream, "the upstream calls of the refused POST").toEqual([]);
      await expectModal(response, 415, "unexpectedError");
      expect(response.headers.get("Location")).toBeNull();
    });
  });
});
