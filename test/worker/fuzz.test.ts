import fc from "fast-check";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { routeTable } from "../../worker/routes";
import type { SealedCookieName } from "../../worker/session/cookies";
import { concretePath, discoverTargets, NOT_FUZZED, schemaKeys, siteProperty, type Target } from "../fuzz/fuzzing";
import { expectModal } from "../support/expectations";
import { type ScreenState, screenCases } from "../support/screens";
import { GUNGNIR } from "../support/vocabulary";
import { ORIGIN, sealedCookie, siteFetch } from "./helpers";

// A fixed-seed sample of the fuzzing that `npm run fuzz` runs at length (tools/fuzz/run.ts), and the check that the
// route table drives it: a route added to worker/routes.tsx is fuzzed without a hand edit.

async function cookieFor(state: ScreenState): Promise<string> {
  const cookies = await Promise.all(
    Object.entries(state).map(([which, value]) => sealedCookie(which as SealedCookieName, value as never)),
  );
  return cookies.join("; ");
}

const send = (path: string, init: RequestInit) => siteFetch(`${ORIGIN}${path}`, init);
let discovered: Promise<Target[]> | undefined;
/** The fuzz's targets for the brand most journeys use, discovered once for this file. */
const targets = () =>
  (discovered ??= discoverTargets(send, {
    routes: routeTable,
    screens: screenCases(GUNGNIR),
    cookieFor,
    serviceId: GUNGNIR.serviceId,
  }));

describe("what the fuzzing found", () => {
  it("answers a multipart part without a name with 400, not 500", async () => {
    const form = new FormData();
    form.append("", "x");
    const response = await siteFetch(`${ORIGIN}/signUp/confirmMail/resend`, {
      method: "POST",
      body: form,
      headers: { Origin: ORIGIN },
      redirect: "manual",
    });
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
    // The modal open, not its title anywhere in the page (the page holds it elsewhere too).
    await expectModal(response, 400, "unexpectedError");
  });

  // A browser writes a name ending in a backslash as it is (workerd's own FormData refuses to write one).
  it("answers a multipart part whose name ends in a backslash with 400 and the error modal, not 500", async () => {
    const boundary = "fuzz-boundary";
    const response = await siteFetch(`${ORIGIN}/signUp/confirmMail/resend`, {
      method: "POST",
      body: `--${boundary}\r\nContent-Disposition: form-data; name="a\\"\r\n\r\nx\r\n--${boundary}--\r\n`,
      headers: { Origin: ORIGIN, "Content-Type": `multipart/form-data; boundary=${boundary}` },
      redirect: "manual",
    });
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
    await expectModal(response, 400, "unexpectedError");
  });

  // The screens' enrolment state holds a redirect to this project's site (https://signin.test); `npm run fuzz`
  // sends it to the preview's origin, where that redirect is not allowed. Only a replayed cookie gets there (the
  // offer checks the redirect before it writes the state), so it is a bad journey state: the parameter modal, not
  // the 502 of an upstream's refused redirect.
  it("answers 'later' with another origin's enrolment state with the parameter modal (400), not 502", async () => {
    const ELSEWHERE = "http://127.0.0.1:4621";
    const screen = screenCases(GUNGNIR).find(({ name }) => name === "passkey-enrolment");
    expect(screen?.state.signIn?.enrolment?.redirectTo).toMatch(/^https:\/\/signin\.test\//);
    const response = await siteFetch(`${ELSEWHERE}/signIn/passkey/enrol/later`, {
      method: "POST",
      body: new URLSearchParams(),
      headers: { Origin: ELSEWHERE, Cookie: await cookieFor(screen?.state ?? {}) },
      redirect: "manual",
    });
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
    await expectModal(response, 400, "parameterError");
  });
});

describe("the fuzz's targets come from the route table", () => {
  /**
   * "METHOD row" for each target: which row of the table answers its request, by a router made of the table's rows
   * in its order as the site's is (worker/index.tsx), each row answering its own name. Independent of how the
   * targets were derived from the table.
   */
  async function rowsReached(found: Target[]): Promise<Set<string>> {
    const router = new Hono();
    for (const route of routeTable) router.on(route.method, [route.path], (c) => c.text(route.name));
    const rows = found.map(async (target) => {
      const [method, path] = target.kind === "form" ? ["POST", target.action] : ["GET", target.path];
      return `${method} ${await (await router.request(path, { method })).text()}`;
    });
    return new Set(await Promise.all(rows));
  }

  it("fuzzes every row of the table (GET and POST for a row of both), but the rows NOT_FUZZED names", async () => {
    const reached = await rowsReached(await targets());
    const expected = routeTable
      .filter((route) => !(route.name in NOT_FUZZED))
      .flatMap((route) => (route.method === "ALL" ? ["GET", "POST"] : [route.method]).map((m) => `${m} ${route.name}`));
    expect(expected.filter((row) => !reached.has(row))).toEqual([]);
    // Each exception is a row of the table: a renamed row must not leave the fuzz by its old name's exception.
    for (const name of Object.keys(NOT_FUZZED)) expect(routeTable.map((route) => route.name)).toContain(name);
  });

  it("posts each form with its rules' field names, and each query with its schema's names", async () => {
    const found = await targets();
    for (const route of routeTable.filter((row) => row.form)) {
      const fields = schemaKeys(route.form?.({}));
      const posted = found.filter(
        (target) =>
          target.kind === "form" &&
          new URL(target.action, ORIGIN).pathname === concretePath(route.path, GUNGNIR.serviceId),
      );
      expect(posted.length, `${route.path} is posted to`).toBeGreaterThan(0);
      for (const target of posted)
        expect(target.kind === "form" && target.fields).toEqual(expect.arrayContaining(fields));
    }
    // The schemas name fields at all (a broken reading of them would name none): the sign-in form's two at least.
    const signIn = routeTable.find((route) => route.method === "POST" && route.path === "/signIn");
    expect(schemaKeys(signIn?.form?.({}))).toEqual(expect.arrayContaining(["username", "password"]));
    const callback = routeTable.find((route) => route.path === "/callback");
    expect(schemaKeys(callback?.query)).toEqual(expect.arrayContaining(["code", "state"]));
  });
});

describe("the brand's own paths", () => {
  // A made-up brand answers the not-found page before any handler: the fuzz would reach none of them.
  it("are fuzzed under a real brand", async () => {
    const found = await targets();
    const paths = new Set(
      found.map((target) => (target.kind === "form" ? new URL(target.action, ORIGIN).pathname : target.path)),
    );
    const branded = routeTable.filter((route) => route.path.includes("/:serviceId/"));
    expect(branded.length).toBeGreaterThan(0);
    for (const route of branded) {
      const path = concretePath(route.path, GUNGNIR.serviceId);
      expect(path.startsWith(`/${GUNGNIR.serviceId}/`), route.path).toBe(true);
      expect(paths.has(path), `${path} is fuzzed`).toBe(true);
    }
  });
});

describe("fuzzed forms and queries (fixed-seed sample)", () => {
  it("never answer 5xx, never reflect input unescaped, never leave without the security headers", async () => {
    const found = await targets();
    // The discovery found the screens' forms (a broken discovery would fuzz nothing).
    expect(
      found.filter((target) => target.kind === "form" && !target.screen.startsWith("route ")).length,
    ).toBeGreaterThanOrEqual(12);
    await fc.assert(siteProperty(found, send, ORIGIN), { numRuns: 400, seed: 20261123 });
  }, 180_000);
});
