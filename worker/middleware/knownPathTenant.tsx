import type { MiddlewareHandler } from "hono";
import { NotFound } from "../../pages/NotFound";
import { brandById } from "../../themes/brands";
import type { AppEnv } from "../context";
import { renderPage } from "../render";

/**
 * For /{tenantId}/… routes: the tenant middleware falls back to another brand when the path names no service,
 * so a path tenant that is not a service (or is not the brand resolved) is a page that does not exist.
 *
 * @example { path: "/:tenantId/consent", pathTenant: true, … } in the route table
 */
export function knownPathTenant(): MiddlewareHandler<AppEnv> {
  return async function knownPathTenant(c, next) {
    const tenantId = c.req.param("tenantId");
    if (!tenantId || brandById(tenantId) === undefined || c.get("brand").id !== tenantId) {
      return renderPage(c, <NotFound />, { status: 404 });
    }
    await next();
  };
}
