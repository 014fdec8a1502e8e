import type { Context } from "hono";
import type { Brand } from "../themes/schema";
import type { RequestLog } from "./log";

/** The cache lifetime of the site's public files (docs/security.md, "Every response of the worker"). */
export const PUBLIC_FILE_CACHE = "public, max-age=3600";

/** Per-request values set by the middleware chain, typed once for every route. */
interface AppVariables {
  requestId: string;
  nonce: string;
  brand: Brand;
  /** Origins a form on this page may end up at after redirects (CSP form-action, architecture §8). */
  formActionOrigins: string[];
  /** What the request's one summary log line says (worker/middleware/requestLog.ts). */
  log: RequestLog;
  /**
   * Set once an identity call of this request got the upstream's answer about its input (a success or a refusal),
   * not a failure of the upstream (5xx, time-out, dropped, malformed): a credential try is counted only then
   * (worker/routeKinds.tsx, docs/security.md "Rate limits").
   */
  upstreamAnswered?: true;
  /** A page whose address holds the app's own query keeps referrers on the site (worker/routes/entry.tsx). */
  referrerPolicy?: "same-origin";
  /** A public file the same for everyone (the apps' association files) may be cached; everything else is no-store. */
  cacheControl?: typeof PUBLIC_FILE_CACHE;
  /** Each sealed state as this request holds it (worker/session/cookies.ts: opened once, then as written). */
  sealed?: Map<string, Promise<unknown>>;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}

export type AppContext = Context<AppEnv>;
