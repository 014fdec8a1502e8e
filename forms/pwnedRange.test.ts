import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listedInRange, RANGE_PREFIX, sha1Hex } from "./pwnedRange";

// The k-anonymity model of docs/security.md "Leaked passwords", as the worker and the island both run it.

describe("sha1Hex", () => {
  it.each([
    // The Pwned Passwords API's own example, and FIPS 180's "abc".
    ["P@ssw0rd", "21BD12DC183F740EE76F27B78EB39C8AD972A757"],
    ["abc", "A9993E364706816ABA3E25717850C26C9CD0D89D"],
  ])("hashes %j to %s", async (password, hash) => {
    expect(await sha1Hex(password)).toBe(hash);
  });

  it("hashes the UTF-8 bytes, as the list was made", async () => {
    const password = "Pässwörd1!";
    expect(await sha1Hex(password)).toBe(createHash("sha1").update(password, "utf8").digest("hex").toUpperCase());
  });
});

describe("listedInRange", () => {
  // P@ssw0rd's suffix (after the prefix 21BD1), and another of the same range.
  const own = "2DC183F740EE76F27B78EB39C8AD972A757";
  const other = "0018A45C4D1DEF81644B54AB7F969B88D65";

  it.each([
    ["listed with a count", true, `${other}:3\r\n${own}:52579\r\n`],
    ["listed, lower-case hex and LF alone", true, `${other.toLowerCase()}:3\n${own.toLowerCase()}:2`],
    ["another suffix only", false, `${other}:3`],
    ["a padding line (count 0) for the suffix", false, `${other}:3\r\n${own}:0`],
    ["the suffix only in a malformed line", false, `${other}:3\r\n${own}:x\r\n${own}\r\n:${own}:1\r\n${own}1:1`],
  ])("%s → %s", (_, listed, body) => {
    expect(listedInRange(body, own)).toBe(listed);
  });

  it.each([
    ["empty", ""],
    ["HTML", "<!doctype html><title>Error</title>"],
    ["JSON", '{"type":"injected_fault"}'],
    ["truncated hex", "ABC:1"],
  ])("answers undefined for an answer without one well-formed line: %s", (_, body) => {
    expect(listedInRange(body, own)).toBeUndefined();
  });

  it("matches the whole suffix, never a part of it", () => {
    expect(listedInRange(`${own.slice(0, 34)}0:5`, own)).toBe(false);
    expect(listedInRange(`${own}:5`, own.slice(0, 34))).toBe(false);
  });
});

describe("RANGE_PREFIX", () => {
  it.each([
    ["21BD1", true],
    ["21bd1", true],
    ["21BD", false],
    ["21BD12", false],
    ["21BG1", false],
    ["", false],
  ])("%j → %s", (prefix, ok) => {
    expect(RANGE_PREFIX.test(prefix)).toBe(ok);
  });
});
