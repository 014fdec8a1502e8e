import type { MiddlewareHandler } from "hono";
import { RANGE_PREFIX } from "../../forms/pwnedRange";
import type { AppEnv } from "../context";
import { passwordRange } from "../identity/pwnedPasswords";

// docs/security.md "Leaked passwords": the range of a prefix for the password field's island
// (islands/ChosenPassword.tsx), which may not ask the range API itself (CSP connect-src 'self'). The same cached answer
// the forms' checks use. The prefix narrows down a password being typed: log lines and traces name this route
// `/password/range/{prefix}` (loggedRequestPath, worker/log.ts; scrubSpan, worker/errorReporting.ts).

/** 200 with the padded range; 204 when the check is off or had no answer in time (the form's POST checks again). */
export const answerPasswordRange: MiddlewareHandler<AppEnv> = async function answerPasswordRange(c) {
  const prefix = c.req.param("prefix") ?? "";
  if (!RANGE_PREFIX.test(prefix)) return c.json({ type: "not_found", detail: "No such range." }, 404);
  const range = await passwordRange(c, prefix.toUpperCase());
  return range === undefined ? c.body(null, 204) : c.text(range);
};
