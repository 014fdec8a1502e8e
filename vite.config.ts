import { fileURLToPath } from "node:url";
import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig, loadEnv } from "vite";
import { CLIENT_ENTRY, islandsManifestPlugin, islandsWithoutPreloadHelper } from "./islands/vite-plugin.ts";
import { japanesePhrases } from "./messages/vite-plugin.ts";
import { brandDataPlugin } from "./themes/vite-plugin.ts";
import { localHttps } from "./worker/localHttps.vite-plugin.ts";
import { reactStringChunks } from "./worker/reactStringChunks.vite-plugin.ts";
import { releasePlugin } from "./worker/release.vite-plugin.ts";
import { serverIslands } from "./worker/serverIslands.vite-plugin.ts";
import { unreachableCode } from "./worker/unreachableCode.vite-plugin.ts";

const fromRoot = (path: string) => fileURLToPath(new URL(`./${path}`, import.meta.url));

// CLOUDFLARE_ENV=dev (from .env.development under `vite dev`, or set by the tests) selects wrangler's
// dev environment: only there do the emulator worker, its IDENTITY binding and /__emulator exist.
export default defineConfig(({ command, mode }) => {
  const cloudflareEnv = process.env.CLOUDFLARE_ENV ?? loadEnv(mode, process.cwd(), "").CLOUDFLARE_ENV;
  const withEmulator = cloudflareEnv === "dev";
  return {
    // react-dom/server.edge also bundles the legacy renderToString build (CommonJS: nothing of it is tree-shaken);
    // the worker only streams, so a build takes the streaming renderer alone. Only the worker imports it.
    ...(command === "build"
      ? {
          resolve: {
            alias: {
              "react-dom/server": fromRoot("node_modules/react-dom/cjs/react-dom-server.edge.production.js"),
            },
          },
        }
      : {}),
    plugins: [
      // `npm run dev:https`: HTTPS on localhost with a locally made certificate (worker/localHttps.vite-plugin.ts).
      ...(process.env.HTTPS === "1" ? localHttps() : []),
      // The UI text's phrase boundaries, marked at build time so that Japanese breaks where it reads
      // (messages/vite-plugin.ts; the brand data's are marked by brandDataPlugin).
      japanesePhrases(),
      brandDataPlugin(),
      islandsManifestPlugin(),
      islandsWithoutPreloadHelper(),
      releasePlugin(),
      // The worker's React writes each page as strings, encoded once a flush (worker/reactStringChunks.vite-plugin.ts).
      reactStringChunks(),
      // The worker's build drops the islands' effects and event handlers, which a server render never runs
      // (worker/serverIslands.vite-plugin.ts).
      serverIslands(),
      // Library code the worker never runs (qrcode's searches, react-dom's own API, Hono's deprecated mount(), Sentry's
      // default integration list), left out of its build (worker/unreachableCode.vite-plugin.ts).
      unreachableCode(),
      cloudflare({
        configPath: "./wrangler.toml",
        // The servers the tests start (test/e2e/server.ts sets TEST_SERVER=1) keep the emulator's state in memory, not
        // in .wrangler/state, so that two of them, or one beside `npm run dev`, never share one; and they open no
        // inspector, whose one default port two of them would race for.
        ...(process.env.TEST_SERVER === "1" ? { persistState: false, inspectorPort: false } : {}),
        ...(withEmulator ? { auxiliaryWorkers: [{ configPath: "./emulator/wrangler.toml" }] } : {}),
      }),
    ],
    environments: {
      // The worker's upload is budgeted (≤ 150 KB gzip, reported by `npm run bench`).
      // __SENTRY_DEBUG__: the SDK's debug logging is dropped from the bundle (its documented tree-shaking flag).
      // __DEV_ROUTES__: the dev-only routes (/__gallery) exist in the dev environment only; elsewhere they and
      // their modules are tree-shaken away (test/e2e/productionBuild.test.ts checks the bundle).
      signin_site: {
        build: { minify: true },
        define: { __SENTRY_DEBUG__: "false", __DEV_ROUTES__: JSON.stringify(withEmulator) },
      },
      client: {
        build: {
          // The islands' syntax for the oldest browsers the site supports (docs/browsers.md), not Vite's default line
          // (Safari 16.4): Safari and iOS 15.4, Chrome, Edge and Android WebView 105, Firefox 121.
          target: ["es2022", "safari15.4", "ios15.4", "chrome105", "edge105", "firefox121"],
          manifest: true,
          // The worker's pages preload each island's chunks themselves (<link rel="modulepreload">, from the
          // manifest): no dependency lists in the entry (and islandsWithoutPreloadHelper drops the helper).
          modulePreload: false,
          rolldownOptions: {
            input: CLIENT_ENTRY,
            // The React runtime is one chunk of its own, shared by every island page and cached for a
            // year (public/_headers: /assets/* immutable); a page's own island code is the small rest.
            output: {
              codeSplitting: { groups: [{ name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ }] },
            },
          },
        },
      },
    },
    builder: {
      // The client first: the worker build reads its manifest for the island script URLs.
      async buildApp(builder) {
        const client = builder.environments.client;
        if (client) await builder.build(client);
      },
    },
  };
});
