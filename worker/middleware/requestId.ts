import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

const INCOMING = /^[A-Za-z0-9-]{8,64}$/;

/** Correlates a user's report with the structured logs; Cloudflare's ray id is reused when present. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestId(c, next) {
    const ray = c.req.header("cf-ray") ?? "";
    c.set("requestId", INCOMING.test(ray) ? ray : crypto.randomUUID());
    await next();
    c.res.headers.set("X-Request-Id", c.get("requestId"));
  };
}
