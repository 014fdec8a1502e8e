import { wrapRequestHandler } from "@sentry/cloudflare/request";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { Result, Router } from "hono/router";
import { Hono } from "hono/tiny";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { common } from "../messages/ja";
import type { AppEnv } from "./context";
import { reportError, sentryOptions } from "./errorReporting";
import { logEvent } from "./log";
import { appFormAction } from "./middleware/appFormAction";
import { brandResolution } from "./middleware/brand";
import { configurationCheck } from "./middleware/configurationCheck";
import { knownPathBrand } from "./middleware/knownPathBrand";
import { maintenance } from "./middleware/maintenance";
import { requestId } from "./middleware/requestId";
import { requestLog } from "./middleware/requestLog";
import { securityHeaders } from "./middleware/securityHeaders";
import { errorPage } from "./render";
import type { RouteEntry } from "./routeKinds";
import { routeTable } from "./routes";

const FORM_BODY_LIMIT = 32 * 1024;

export const app = new Hono<AppEnv>();

/**
 * The pattern router (hono/tiny, for the upload's size) tries every handler of the route table in turn, some 500
 * patterns for each request: the handlers it found for a method and path are kept for the next request to the same
 * path, at most MATCHES_KEPT of them (the oldest go first), short paths only (a path is what a client sends).
 */
const MATCHES_KEPT = 512;
function keptMatches<T>(router: Router<T>): Router<T> {
  const kept = new Map<string, Result<T>>();
  return {
    name: router.name,
    add(method, path, handler) {
      kept.clear();
      router.add(method, path, handler);
    },
    match(method, path) {
      const key = `${method} ${path}`;
      let result = kept.get(key);
      if (result === undefined) {
        result = router.match(method, path);
        if (path.length <= 256) {
          if (kept.size >= MATCHES_KEPT) kept.delete(kept.keys().next().value as string);
          kept.set(key, result);
        }
      }
      return result;
    },
  };
}
app.router = keptMatches(app.router);

// Every response, whatever answers it, in this order (docs/development.md): a request id, the request's log line, the
// security headers with a fresh CSP nonce, a configuration that can seal cookies, the maintenance switch, a body limit.
app.use(requestId());
app.use(requestLog());
app.use(securityHeaders());
app.use(configurationCheck());
app.use(maintenance());
app.use(
  bodyLimit({
    maxSize: FORM_BODY_LIMIT,
    onError: () => {
      throw new HTTPException(413);
    },
  }),
);

/** The middleware a route of the table runs before its own handlers (architecture §2, §8). */
function middlewareOf(route: RouteEntry): MiddlewareHandler<AppEnv>[] {
  if (route.surface === "bare") return [];
  return [csrf(), brandResolution(), appFormAction(), ...(route.pathBrand ? [knownPathBrand()] : [])];
}

/** Names the row that answers in the request's log line (a row that passes on is followed by the one that answers). */
function named(route: RouteEntry): MiddlewareHandler<AppEnv> {
  return async function routeName(c, next) {
    c.get("log").route = route.name;
    await next();
  };
}

for (const route of routeTable) {
  const handlers = [named(route), ...middlewareOf(route), ...route.handlers] as [MiddlewareHandler<AppEnv>];
  app.on(route.method, [route.path], ...handlers);
}

app.onError(async (error, c) => {
  const status = (error instanceof HTTPException ? error.status : 500) as ContentfulStatusCode;
  if (status >= 500) reportError(c, error);
  logEvent(status >= 500 ? "error" : "warn", "request_failed", {
    requestId: c.get("requestId"),
    status,
    name: error.name,
    message: error.message,
    path: c.req.path,
  });
  try {
    return await errorPage(c, { modal: "unexpectedError", status });
  } catch {
    return c.text(common.plainError, 500);
  }
});

// product §9 error reporting: with SENTRY_DSN set, each request runs inside Sentry's handler; without it nothing of
// Sentry runs and nothing is sent.
export default {
  fetch(request, env, ctx) {
    const options = sentryOptions(env);
    if (!options) return app.fetch(request, env, ctx);
    return wrapRequestHandler({ options, request, context: ctx }, () => app.fetch(request, env, ctx));
  },
} satisfies ExportedHandler<Env>;
