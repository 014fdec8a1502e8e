import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import { brandById, brandForClientId, defaultBrand } from "../../themes/brands";
import type { Brand } from "../../themes/schema";
import type { AppEnv } from "../context";
import { LAST_BRAND_COOKIE } from "../session/cookies";

const ONE_YEAR = 365 * 24 * 60 * 60;

// First path segments that are screens, not brands: '/signIn/mfa' must never be read as the brand 'signIn'.
const NOT_BRANDS = new Set([
  "signIn",
  "signUp",
  "resetPassword",
  "mfa",
  "callback",
  "error",
  "auth",
  "oauth2",
  "__emulator",
  "brands",
  "assets",
  ".well-known",
]);
const BRAND_ROUTE = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)\/(auth|consent|forgotPassword|initiatePassword|changeEmail)\/?$/;

interface BrandSources {
  path: string;
  clientId?: string | undefined;
  lastServiceId?: string | undefined;
}

/** architecture §6: the brand in the path → client_id → the last resolved brand → the neutral default. */
export function resolveBrand({ path, clientId, lastServiceId }: BrandSources): { brand: Brand; resolved: boolean } {
  const inPath = BRAND_ROUTE.exec(path)?.[1];
  const fromPath = inPath && !NOT_BRANDS.has(inPath) ? brandById(inPath) : undefined;
  const brand =
    fromPath ??
    (clientId ? brandForClientId(clientId) : undefined) ??
    (lastServiceId ? brandById(lastServiceId) : undefined);
  return brand ? { brand, resolved: true } : { brand: defaultBrand, resolved: false };
}

async function formClientId(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (c.req.method !== "POST" || !/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type))
    return undefined;
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody();
  } catch {
    // A form body that cannot be read (a multipart part without a name, a cut boundary) is the client's error.
    throw new HTTPException(400, { message: "malformed form body" });
  }
  return typeof body.client_id === "string" ? body.client_id : undefined;
}

/**
 * Resolves the brand once per request and remembers it, so that pages reached without a client_id
 * keep the colours of the brand the user came from.
 *
 * @example app.use(brandResolution())
 */
export function brandResolution(): MiddlewareHandler<AppEnv> {
  return async function brandResolution(c, next) {
    const clientId = c.req.query("client_id") ?? (await formClientId(c));
    const lastServiceId = getCookie(c, LAST_BRAND_COOKIE, "host");
    const { brand, resolved } = resolveBrand({ path: c.req.path, clientId, lastServiceId });
    c.set("brand", brand);
    if (resolved && brand.id !== lastServiceId) {
      setCookie(c, LAST_BRAND_COOKIE, brand.id, { prefix: "host", httpOnly: true, sameSite: "Lax", maxAge: ONE_YEAR });
    }
    await next();
  };
}
