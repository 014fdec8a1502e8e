import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { logEvent } from "../log";
import { errorPage } from "../render";
import { sessionKeysProblem } from "../session/keys";

/** The last SESSION_KEYS checked and what was wrong with it: a value is checked once per isolate, not per request. */
let checked: { keys: string | undefined; problem: string | undefined } | undefined;

function keysProblem(keys: string | undefined): string | undefined {
  if (!checked || checked.keys !== keys) checked = { keys, problem: sessionKeysProblem(keys) };
  return checked.problem;
}

/**
 * architecture §8: outside the dev environment the site refuses to serve with a missing, short or known
 * development session key. Every request gets a plain 503 error page (no usable site, no cookie sealed with a
 * public key) and the reason is logged; /health says the same, for the operator.
 *
 * @example app.use(configurationCheck())
 */
export function configurationCheck(): MiddlewareHandler<AppEnv> {
  return async function configurationCheck(c, next) {
    if (c.env.APP_ENV === "dev") return next();
    const problem = keysProblem(c.env.SESSION_KEYS);
    if (!problem) return next();
    logEvent("error", "configuration_invalid", { requestId: c.get("requestId"), problem });
    if (c.req.path === "/health") return c.json({ status: "misconfigured", problem }, 503);
    return errorPage(c, { modal: "systemError", status: 503 });
  };
}
