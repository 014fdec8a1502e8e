/**
 * Build-time constant (vite.config.ts `define`): true only in wrangler's dev environment (CLOUDFLARE_ENV=dev) and in
 * the workerd tests. Routes under `if (__DEV_ROUTES__)` are dropped, with their modules, from production and staging.
 */
declare const __DEV_ROUTES__: boolean;
