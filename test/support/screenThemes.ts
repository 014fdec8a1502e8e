import { devSessionKeys } from "./devKeys";
import { sealedCookie } from "./forms";
import { type ScreenBrand, type ScreenCase, screenCases } from "./screens";
import { GUNGNIR, LEMON, PARTNER } from "./vocabulary";

// The four themes every screen is checked in (the browser tests' axe and script-free audits) and pictured in (the
// gallery), and the cookies that put a browser on one of its screens: one definition for both.

export interface ScreenTheme {
  label: string;
  brand: ScreenBrand;
}

export const SCREEN_THEMES: readonly ScreenTheme[] = [
  // An unmapped client id resolves no service: the neutral black-and-white theme.
  { label: "default", brand: { serviceId: "default", clientId: "no-such-client" } },
  { label: GUNGNIR.serviceId, brand: GUNGNIR },
  { label: LEMON.serviceId, brand: LEMON },
  { label: PARTNER.serviceId, brand: PARTNER },
];

/** The screens a theme has: those under /{serviceId}/ exist only for a real service. */
export function themeScreens({ brand }: ScreenTheme): ScreenCase[] {
  return screenCases(brand).filter(
    (screen) => brand.serviceId !== "default" || !screen.path.startsWith(`/${brand.serviceId}/`),
  );
}

/**
 * The `name=value` cookies that put a browser on `screen`: its sealed state, sealed with the dev environment's keys
 * as the previewed site would have, and the brand the user came from (screens reached without a client_id keep it,
 * architecture §6).
 */
export async function screenCookies(brand: ScreenBrand, screen: ScreenCase): Promise<string[]> {
  const cookies = await Promise.all(
    Object.entries(screen.state).map(([which, value]) =>
      sealedCookie(devSessionKeys(), which as never, value as never),
    ),
  );
  if (brand.serviceId !== "default") cookies.push(`__Host-service=${brand.serviceId}`);
  return cookies;
}
