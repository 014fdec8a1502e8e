import { associationFiles } from "../../themes/brands";
import { type AppContext, PUBLIC_FILE_CACHE } from "../context";

// docs/passkeys.md "The brands' apps": the files by which iOS and Android let a brand's app use this host's
// passkeys in its webview (Apple's `webcredentials`, Digital Asset Links' `get_login_creds` and `handle_all_urls`),
// made from brand data at build time (themes/build.ts). Every brand shares the host, so each Android statement also
// carries Dynamic App Links rules: no app opens another brand's pages or any mailed link (`androidLinkRules`).
// Served by the worker itself, never by the narrow proxy: the OAuth2 server knows nothing of the apps. Apple's
// fetcher follows no redirect and wants `application/json`; both may be cached.

function associationFile(c: AppContext, body: string): Response {
  c.set("cacheControl", PUBLIC_FILE_CACHE);
  return c.body(body, 200, { "Content-Type": "application/json" });
}

/** GET /.well-known/apple-app-site-association */
export const appleAppSiteAssociation = async (c: AppContext) =>
  associationFile(c, associationFiles.appleAppSiteAssociation);

/** GET /.well-known/assetlinks.json */
export const assetLinks = async (c: AppContext) => associationFile(c, associationFiles.assetLinks);
