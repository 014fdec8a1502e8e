import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { logEvent, loggedRequestPath, newRequestLog, outcomeOfStatus } from "../log";
import { deployEnvironment } from "../render";

/**
 * One JSON line per request: request id, environment, brand, route, status, outcome, the upstream
 * calls with their latency, the rate-limit decision and the duration. The path is logged without its query,
 * which may hold codes, challenges or addresses, and the range route's without the password prefix
 * (`/password/range/{prefix}`, loggedRequestPath).
 *
 * @example app.use(requestLog())
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async function requestLog(c, next) {
    const started = performance.now();
    const log = newRequestLog();
    c.set("log", log);
    await next();
    const status = c.res.status;
    logEvent(status >= 500 ? "error" : status >= 400 ? "warn" : "info", "request", {
      requestId: c.get("requestId"),
      environment: deployEnvironment(c.env),
      brand: c.get("brand")?.id,
      route: log.route,
      method: c.req.method,
      path: loggedRequestPath(c.req.path),
      status,
      outcome: log.outcome ?? outcomeOfStatus(status),
      rateLimit: log.rateLimit,
      passwordCheck: log.passwordCheck,
      upstream: log.upstream,
      durationMs: Math.round(performance.now() - started),
    });
  };
}
