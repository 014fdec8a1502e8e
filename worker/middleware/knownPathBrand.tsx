import type { MiddlewareHandler } from "hono";
import { NotFound } from "../../pages/NotFound";
import { brandById } from "../../themes/brands";
import type { AppEnv } from "../context";
import { renderPage } from "../render";

/**
 * For /{serviceId}/… routes: brand resolution (middleware/brand.ts) falls back to another brand when the path names
 * none, so a path whose first segment is not a brand's id (or not the brand resolved) is a page that does not exist.
 *
 * @example { path: "/:serviceId/consent", pathBrand: true, … } in the route table
 */
export function knownPathBrand(): MiddlewareHandler<AppEnv> {
  return async function knownPathBrand(c, next) {
    const serviceId = c.req.param("serviceId");
    if (!serviceId || brandById(serviceId) === undefined || c.get("brand").id !== serviceId) {
      return renderPage(c, <NotFound />, { status: 404 });
    }
    await next();
  };
}
