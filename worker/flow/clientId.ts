import { clientIdsForBrand } from "../../themes/brands";
import type { AppContext } from "../context";
import type { AuthRequest } from "../session/authRequest";

/** The client_id that links on a page should carry: the app's, else the query's, else the brand's first. */
export function clientIdFor(c: AppContext, authRequest?: AuthRequest | undefined): string | undefined {
  return authRequest?.query.client_id ?? c.req.query("client_id") ?? clientIdsForBrand(c.get("brand").id)[0];
}
