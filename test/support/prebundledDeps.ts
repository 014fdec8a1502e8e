// The dependencies a workerd test project pre-bundles once per run (vitest's deps.optimizer). Unbundled, every test
// file's import loaded each of their modules one by one into workerd: about 520 for the worker (@sentry/* alone 378),
// some 3 s of each file's import. A subpath not listed still works, unbundled.
import { fileURLToPath } from "node:url";

/** Where the bundles go, as each workerd config's `cacheDir`: node_modules/.vite, never the project's own folder. */
export const PREBUNDLE_CACHE_DIR = fileURLToPath(new URL("../../node_modules/.vite", import.meta.url));

export function prebundledDeps(include: string[]) {
  return {
    optimizer: {
      ssr: {
        enabled: true,
        include,
        // @sentry/cloudflare imports node: builtins that only workerd provides (nodejs_compat).
        rolldownOptions: { external: [/^node:/] },
      },
    },
  };
}
