import { sampleClientIds } from "../../themes/data/clients";
import type { AppBrand } from "./appStart";

// Brands beyond vocabulary.ts's, each named once here for the tests that need a brand of their own.

/** A brand no other journey uses: the native app played by a maintained OAuth2 client library signs in to it. */
export const NOSH: AppBrand = { serviceId: "nosh-shirotae", clientId: sampleClientIds.nosh };
