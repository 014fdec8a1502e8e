import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context";

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/**
 * architecture §3/§8: the site's form routes take forms only; JSON and anything else is refused with 415.
 *
 * @example formBodyOnly() before a form route's validator
 */
export function formBodyOnly(): MiddlewareHandler<AppEnv> {
  return async function formBodyOnly(c, next) {
    if (!FORM_TYPES.test(c.req.header("content-type") ?? "")) throw new HTTPException(415);
    await next();
  };
}
