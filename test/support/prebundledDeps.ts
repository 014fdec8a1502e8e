// The dependencies a workerd test project pre-bundles once per run (vitest's deps.optimizer). Unbundled, every test
// file's import loaded each of their modules one by one into workerd: about 520 for the worker (@sentry/* alone 378),
// some 3 s of each file's import. A subpath not listed still works, unbundled.
//
// The bundles go to node_modules/.vite (each config's cacheDir), never into the project's own folder.
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
