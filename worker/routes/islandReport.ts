import type { MiddlewareHandler } from "hono";
import { z } from "zod/mini";
import { crashPhases, crashSources, islandNames } from "../../islands/names";
import type { AppEnv } from "../context";
import { reportUnexpected } from "../errorReporting";
import { logEvent } from "../log";

// An island that crashes in the browser says so here (islands/client.tsx; so does any uncaught
// error of a page), so the crash reaches the logs and error reporting without the Sentry browser SDK in the islands'
// script. Only the site's own pages may report (Fetch Metadata or Origin), the body is small and checked, and the
// route has its own rate-limit class.

const MAX_BODY_BYTES = 2048;

// "page" with phase "uncaught": an error no island caught (islands/client.tsx listens on the window), which is how an
// engine below the browser floor (docs/browsers.md) shows up in the reports.
const crashReport = z.object({
  island: z.enum([...islandNames, ...crashSources]),
  phase: z.enum(crashPhases),
  message: z.string().check(z.maxLength(500)),
});

function fromThisSite(c: Parameters<MiddlewareHandler<AppEnv>>[0]): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  return c.req.header("origin") === new URL(c.req.url).origin;
}

export const reportIslandCrash: MiddlewareHandler<AppEnv> = async function reportIslandCrash(c) {
  if (!fromThisSite(c)) return c.json({ type: "forbidden", detail: "Only the site's own pages report." }, 403);
  const text = await c.req.text();
  if (text.length > MAX_BODY_BYTES) return c.json({ type: "too_large", detail: "The report is too large." }, 413);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const report = crashReport.safeParse(body);
  if (!report.success) return c.json({ type: "invalid_request", detail: "Not a crash report." }, 400);
  const { island, phase } = report.data;
  logEvent("error", "island_crashed", { requestId: c.get("requestId"), island, phase });
  reportUnexpected(c, `island ${island} crashed (${phase}): ${report.data.message}`, { island, phase });
  return c.body(null, 204);
};
