const hostPattern = /^[a-z0-9.-]+(?::\d{1,5})?$/i;

/**
 * The site's public origin: the site overwrites X-Forwarded-Proto and X-Forwarded-Host on every
 * request it forwards or makes, so links and redirects point back at the site, never at the emulator.
 */
export function siteOrigin(headers: Headers, fallback: string | undefined): string {
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  if ((proto === "http" || proto === "https") && host !== undefined && hostPattern.test(host)) {
    return `${proto}://${host.toLowerCase()}`;
  }
  return new URL(fallback ?? "http://localhost:5173").origin;
}
