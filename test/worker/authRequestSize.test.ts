import { describe, expect, it } from "vitest";
import type { AppAuthQuery } from "../../worker/session/authRequest";
import { COOKIE_SIZE_LIMIT } from "../../worker/session/cookies";
import { appStart } from "../support/appStart";
import { GUNGNIR } from "../support/vocabulary";
import { get } from "./helpers";
import { Journey } from "./journey";

// architecture §3: the auth-request cookie holds the app's query, so the query's bounds are the cookie's. An app
// query at every bound still fits (with what the login URL adds later); one beyond them is a parameter problem,
// never a 500 from a cookie that cannot be set.

const atEveryBound: Partial<AppAuthQuery> = {
  state: "s".repeat(256),
  scope: "o".repeat(512),
  code_challenge: "c".repeat(128),
  prompt: "p".repeat(64),
  acr_values: "r".repeat(256),
  max_age: "9".repeat(9),
  hashed_user_id: "h".repeat(128),
  autoFillUserName: "a".repeat(254),
  sign_in_mode: "m".repeat(64),
};

function authRequestCookie(response: Response): string {
  return response.headers.getSetCookie().find((line) => line.startsWith("__Host-auth-request=")) ?? "";
}

describe("the auth request's size", () => {
  it("fits in its cookie with every value at its bound, the login challenge's digest included", async () => {
    const journey = new Journey();
    const start = await journey.request((await appStart(GUNGNIR, "signIn", atEveryBound)).path);
    expect(start.status).toBe(200);
    // One auth-request cookie: the one that holds the challenge's digest.
    const lines = start.headers.getSetCookie().filter((line) => line.startsWith("__Host-auth-request="));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(COOKIE_SIZE_LIMIT);
    expect((await journey.sealed("authRequest"))?.loginChallengeDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, Partial<AppAuthQuery>]>([
    ["a multibyte state", { state: "日".repeat(256) }],
    ["a control character in the scope", { scope: "openid\u0000" }],
    ["a state beyond its bound", { state: "s".repeat(257) }],
    ["a code challenge outside RFC 7636", { code_challenge: "short" }],
    ["a multibyte login ID to fill in", { autoFillUserName: "花子".repeat(100) }],
  ])("refuses %s with the parameter modal, storing nothing", async (_name, extra) => {
    const response = await get((await appStart(GUNGNIR, "signIn", extra)).path);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("パラメータに不備がありました");
    expect(authRequestCookie(response)).toBe("");
  });
});
