import type { MiddlewareHandler } from "hono";
import { modals } from "../../messages/modals";
import type { AppEnv } from "../context";
import { errorPage } from "../render";

/**
 * The operators' switch (docs/runbook.md, "Maintenance on and off"): `MAINTENANCE=on` as a secret in production and staging, in
 * `.dev.vars` locally. Unset or anything else is off.
 */
export function maintenanceOn(env: Env): boolean {
  return env.MAINTENANCE?.trim().toLowerCase() === "on";
}

/** Paths that keep answering during maintenance: the health check, and the emulator's developer endpoints. */
// The apps' association files are made at build time and ask no upstream: a maintenance window must not make the
// platforms drop the apps' passkey association.
const STILL_ANSWERED = [
  /^\/health$/,
  /^\/__emulator(\/|$)/,
  /^\/\.well-known\/(apple-app-site-association|assetlinks\.json)$/,
];

/**
 * product §8 MAINTENANCE, switched by operators: every page is the maintenance modal (not closable) with 503 and
 * Retry-After; the proxy answers its JSON problem. Static assets never reach the worker, so they still load.
 *
 * @example app.use(maintenance())
 */
export function maintenance(): MiddlewareHandler<AppEnv> {
  return async function maintenance(c, next) {
    if (!maintenanceOn(c.env) || STILL_ANSWERED.some((path) => path.test(c.req.path))) return next();
    if (/^\/(auth|oauth2|\.well-known)\//.test(c.req.path)) {
      c.header("Retry-After", String(modals.maintenance.retryAfterSeconds));
      return c.json({ type: "maintenance", detail: "The service is under maintenance." }, 503);
    }
    return errorPage(c, { modal: "maintenance" });
  };
}
