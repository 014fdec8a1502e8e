import { beforeEach, describe, expect, it } from "vitest";
import { commonPasswords } from "../../emulator/contract/commonPasswords";
import { sha1Hex } from "../../forms/pwnedRange";
import { passwordChecklist } from "../../forms/rules";
import { NEW_PASSWORD, PASSWORD } from "../support/vocabulary";
import { call, postJson, resetEmulator } from "./emulatorClient";

// The range API of docs/security.md "Leaked passwords": `GET /range/{5 hex}` in the Pwned Passwords format, from
// the built-in common passwords and the ones a test adds.

beforeEach(resetEmulator);

async function range(prefix: string, padded = true): Promise<Response> {
  return call(`/range/${prefix}`, { headers: padded ? { "Add-Padding": "true" } : {} });
}

/** The answer's lines as [suffix, count]. */
async function lines(response: Response): Promise<[string, number][]> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  const text = await response.text();
  return text.split("\r\n").map((line) => {
    expect(line).toMatch(/^[0-9A-F]{35}:\d+$/);
    const [suffix = "", count = ""] = line.split(":");
    return [suffix, Number(count)];
  });
}

describe("the range API", () => {
  it("lists a built-in common password's suffix with a count, padded to at least 800 lines of count 0", async () => {
    const hash = await sha1Hex("Password1!");
    const answer = await lines(await range(hash.slice(0, 5)));
    expect(answer.length).toBeGreaterThanOrEqual(800);
    expect(answer.length).toBeLessThan(1000);
    const listed = answer.filter(([, count]) => count > 0);
    expect(listed.map(([suffix]) => suffix)).toContain(hash.slice(5));
    expect(answer.filter(([, count]) => count === 0).length).toBe(answer.length - listed.length);
  });

  it("answers a lower-case prefix as the upper-case one, and only the listed lines without padding", async () => {
    const hash = await sha1Hex("Qwerty123!");
    const answer = await lines(await range(hash.slice(0, 5).toLowerCase(), false));
    expect(answer).toContainEqual([hash.slice(5), expect.any(Number)]);
    expect(answer.every(([, count]) => count > 0)).toBe(true);
  });

  it("lists a password added by a test, until the reset", async () => {
    const password = `Leaked-${crypto.randomUUID()}1a`;
    const hash = await sha1Hex(password);
    const added = await postJson("/__emulator/breached-passwords", { password });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ prefix: hash.slice(0, 5) });
    expect(await lines(await range(hash.slice(0, 5)))).toContainEqual([hash.slice(5), 1]);
    await resetEmulator();
    const after = await lines(await range(hash.slice(0, 5)));
    expect(after.filter(([suffix, count]) => suffix === hash.slice(5) && count > 0)).toEqual([]);
  });

  it.each(["ABCD", "ABCDEF", "GHIJK", "ABC%20D"])("refuses the prefix %s (400)", async (prefix) => {
    const response = await range(prefix);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "invalid_request" });
  });

  it("records what each range request carried", async () => {
    await range("ABCDE");
    const recorded = (await (await call("/__emulator/range-requests")).json()) as {
      url: string;
      headers: Record<string, string>;
      bodyBytes: number;
    }[];
    expect(recorded).toEqual([
      expect.objectContaining({
        url: "/range/ABCDE",
        bodyBytes: 0,
        headers: expect.objectContaining({ "add-padding": "true" }),
      }),
    ]);
  });
});

describe("the built-in list", () => {
  it("holds 20 to 50 distinct passwords, each meeting product §5's standard rules", () => {
    expect(commonPasswords.length).toBeGreaterThanOrEqual(20);
    expect(commonPasswords.length).toBeLessThanOrEqual(50);
    expect(new Set(commonPasswords).size).toBe(commonPasswords.length);
    for (const password of commonPasswords)
      expect(
        passwordChecklist(password).filter((row) => !row.ok),
        password,
      ).toEqual([]);
  });

  it("leaves out the passwords the tests choose", () => {
    for (const chosen of [PASSWORD, NEW_PASSWORD]) expect(commonPasswords).not.toContain(chosen);
  });
});
