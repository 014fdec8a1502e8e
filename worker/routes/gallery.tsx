import { Gallery } from "../../pages/Gallery";
import { allBrands, clientIdsForBrand } from "../../themes/brands";
import type { AppContext } from "../context";
import { renderPage } from "../render";

/**
 * Dev only: every brand's sign-in card side by side (`npm run gallery` screenshots it). Registered in the route
 * table under `__DEV_ROUTES__`, so production and staging builds carry neither the route nor this module.
 */
export function showGallery(c: AppContext): Promise<Response> {
  const brands = allBrands().map((brand) => ({ brand, clientId: clientIdsForBrand(brand.id)[0] }));
  return renderPage(c, <Gallery brands={brands} nonce={c.get("nonce")} />);
}
