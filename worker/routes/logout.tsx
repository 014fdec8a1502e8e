import { z } from "zod/mini";
import { ErrorPage } from "../../pages/ErrorPage";
import { brandForClientId } from "../../themes/brands";
import type { AppContext } from "../context";
import { logout } from "../identity/client";
import { siteSetCookie, upstreamSessionCookieName } from "../identity/upstreamCookies";
import { queryValue } from "../queryParams";
import { deployEnvironment } from "../render";
import { formStep } from "../routeKinds";
import { clearSiteCookies, readSealed } from "../session/cookies";

// architecture §8 sign-out: the upstream ends its session and revokes its tokens, the browser forgets every
// cookie but the device credential (docs/devices.md) and all storage of the site, and the user lands on the brand's
// service top (from the brand data, never from the request).

export const logoutQuery = z.object({ client_id: z.optional(queryValue) });

export async function signOut(c: AppContext, query: z.infer<typeof logoutQuery>): Promise<Response> {
  const tokens = await readSealed(c, "tokens");
  // The site forgets the user whatever the upstream answers; a failed upstream logout is logged by the client.
  await logout(c, tokens?.accessToken);
  clearSiteCookies(c);
  // The upstream's session cookie, expired under the site's rules for it (worker/identity/upstreamCookies.ts).
  const expired = siteSetCookie(c, `${upstreamSessionCookieName(c.env)}=; Max-Age=0`);
  if (expired) c.header("Set-Cookie", expired, { append: true });
  // Not "cookies": the browser would drop the device credential with them (docs/devices.md); clearSiteCookies has
  // cleared every other cookie one by one.
  c.header("Clear-Site-Data", '"storage"');
  const brand = (query.client_id ? brandForClientId(query.client_id) : undefined) ?? c.get("brand");
  return c.redirect(brand.fallBackUrls[deployEnvironment(c.env)], 303);
}

/** The same sign-out as a form POST (any page's own form); it needs no journey state. */
export const signOutForm = formStep({
  screen: async () => ({ state: undefined, page: <ErrorPage /> }),
  form: () => logoutQuery,
  submit: (c, { form }) => signOut(c, form),
});
