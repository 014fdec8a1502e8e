// Bundles `npm run fuzz` (tools/fuzz/run.ts) for Node. The fuzz reads the route table (worker/routes.tsx), whose
// modules import the worker build's virtual modules and its `__DEV_ROUTES__` flag: here they are what the dev build
// has (the emulator's routes, the brand data), and stand-ins where the route table does not need the real thing
// (the islands' manifest, the release label), since the fuzz reads the table's rows and never renders a page in Node.
import { build } from "esbuild";

const virtualModules = {
  "virtual:brand-data": 'import { buildBrandData } from "./themes/build"; export default buildBrandData();',
  "virtual:islands-manifest": 'export default { entry: "/islands/client.tsx", entryImports: [], islands: {} };',
  "virtual:release": 'export default "fuzz";',
};

await build({
  entryPoints: ["tools/fuzz/run.ts"],
  outfile: ".fuzz-build/run.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  logLevel: "warning",
  define: { __DEV_ROUTES__: "true", __SENTRY_DEBUG__: "false" },
  plugins: [
    {
      name: "worker-virtual-modules",
      setup(bundler) {
        bundler.onResolve({ filter: /^virtual:/ }, ({ path }) => ({ path, namespace: "worker-virtual" }));
        bundler.onLoad({ filter: /.*/, namespace: "worker-virtual" }, ({ path }) => {
          const contents = virtualModules[path];
          if (contents === undefined) return { errors: [{ text: `no stand-in for ${path}` }] };
          return { contents, loader: "ts", resolveDir: process.cwd() };
        });
      },
    },
  ],
});
