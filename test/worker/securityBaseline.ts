import { expect } from "vitest";
import securityDoc from "../../docs/security.md?raw";
import { baselineTable, valuePattern } from "../support/securityBaseline";

// The security baseline is docs/security.md's table ("Every response of the worker"), read here and compared value
// by value with real responses: a header the code drops or changes fails, and so does one the doc changes alone.
export const BASELINE = baselineTable(securityDoc, "Every response of the worker");

/** Headers a response may carry beyond the baseline: its content's own, and the request's id for the logs. */
const CONTENT_HEADERS = new Set([
  "content-type",
  "content-length",
  "location",
  "set-cookie",
  "retry-after",
  "clear-site-data",
  "vary",
  "x-request-id",
]);

/**
 * Every header of the baseline as the doc gives it; `referrerPolicy` and `others` pick another of a header's
 * documented values.
 */
export function expectBaseline(
  response: Response,
  referrerPolicy = "same-origin",
  others: Record<string, string> = {},
) {
  const variant: Record<string, string> = { "Referrer-Policy": referrerPolicy, ...others };
  const h = response.headers;
  for (const { header, values } of BASELINE) {
    if (values.length === 0) {
      expect(h.get(header), `${header} is documented as absent`).toBeNull();
    } else {
      const expected = variant[header] ?? values[0]!;
      expect(values, `docs/security.md gives ${header} no value ${expected}`).toContain(expected);
      expect(h.get(header), header).toMatch(valuePattern(expected));
    }
  }
  // One nonce per response, the same in every directive that names it.
  const nonces = new Set(h.get("Content-Security-Policy")?.match(/'nonce-[^']+'/g));
  expect(nonces.size).toBe(1);
  expect(h.get("X-Request-Id")).toBeTruthy();
  // Nothing beyond the baseline but the content's own headers: a header the code adds must be documented.
  const documented = new Set(BASELINE.map(({ header }) => header.toLowerCase()));
  const extra = [...h.keys()].filter((name) => !documented.has(name) && !CONTENT_HEADERS.has(name));
  expect(extra, "headers the baseline in docs/security.md does not name").toEqual([]);
}
