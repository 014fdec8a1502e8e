import { Hono } from "hono";
import { z } from "zod";
import { RANGE_PREFIX, RANGE_PREFIX_LENGTH, sha1Hex } from "../../forms/pwnedRange";
import { COMMON_PASSWORD_COUNT, commonPasswords } from "../contract/commonPasswords";
import { problems } from "../contract/problem";
import { BreachedPasswords } from "../state/breachedPasswords";
import type { EmulatorHono } from "./context";
import { jsonBody } from "./requestBody";

// A Pwned Passwords range API (docs/security.md, "Leaked passwords"): `GET /range/{5 hex}` answers `SUFFIX:COUNT`
// lines (CRLF) for the SHA-1 hashes under the prefix, from the built-in common passwords and those a test added.
// `Add-Padding: true` adds zero-count lines of random suffixes, as the real API does, to at least 800 lines.

/** The real API pads to 800–1,000 lines. */
const PADDED_LINES = 800;
const PADDING_SPREAD = 200;

let commonHashes: Promise<string[]> | undefined;

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 35)
    .toUpperCase();
}

export const pwnedRange = new Hono<EmulatorHono>();

pwnedRange.get("/range/:prefix", async (c) => {
  const store = new BreachedPasswords(c.var.services.sql);
  const url = new URL(c.req.url);
  store.recordRequest({
    url: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(c.req.raw.headers),
    bodyBytes: (await c.req.raw.arrayBuffer()).byteLength,
    receivedAt: c.var.now,
  });
  const prefix = c.req.param("prefix");
  if (!RANGE_PREFIX.test(prefix)) throw problems.invalidRequest("The prefix must be 5 hexadecimal characters.");
  const range = prefix.toUpperCase();
  const counts = new Map<string, number>();
  commonHashes ??= Promise.all(commonPasswords.map(sha1Hex));
  for (const hash of await commonHashes) if (hash.startsWith(range)) counts.set(hash, COMMON_PASSWORD_COUNT);
  for (const { hash, count } of store.inRange(range)) counts.set(hash, (counts.get(hash) ?? 0) + count);
  const lines = [...counts].map(([hash, count]) => `${hash.slice(RANGE_PREFIX_LENGTH)}:${count}`);
  if (c.req.header("add-padding") === "true") {
    const wanted = PADDED_LINES + Math.floor(Math.random() * PADDING_SPREAD);
    while (lines.length < wanted) lines.push(`${randomSuffix()}:0`);
  }
  return c.text(lines.sort().join("\r\n"));
});

/** Adds a password to the list (kept as its SHA-1 only); a password added twice counts twice. */
pwnedRange.post("/__emulator/breached-passwords", async (c) => {
  const body = await jsonBody(
    c.req.raw,
    z.object({ password: z.string().min(1).max(1024), count: z.number().int().min(1).max(1e9).default(1) }),
  );
  const hash = await sha1Hex(body.password);
  new BreachedPasswords(c.var.services.sql).add(hash, body.count);
  return c.json({ prefix: hash.slice(0, RANGE_PREFIX_LENGTH) }, 201);
});

/** Every range request received since the last reset, oldest first: its path and query, headers and body size. */
pwnedRange.get("/__emulator/range-requests", (c) => c.json(new BreachedPasswords(c.var.services.sql).requests()));
