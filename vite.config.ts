import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig, loadEnv } from "vite";
import { CLIENT_ENTRY, islandsManifestPlugin } from "./islands/vite-plugin";
import { brandDataPlugin } from "./themes/vite-plugin";
import { releasePlugin } from "./worker/release.vite-plugin";

// CLOUDFLARE_ENV=dev (from .env.development under `vite dev`, or set by the tests) selects wrangler's
// dev environment: only there do the emulator worker, its IDENTITY binding and /__emulator exist.
export default defineConfig(({ mode }) => {
  const cloudflareEnv = process.env.CLOUDFLARE_ENV ?? loadEnv(mode, process.cwd(), "").CLOUDFLARE_ENV;
  const withEmulator = cloudflareEnv === "dev";
  return {
    plugins: [
      brandDataPlugin(),
      islandsManifestPlugin(),
      releasePlugin(),
      cloudflare({
        configPath: "./wrangler.toml",
        ...(withEmulator ? { auxiliaryWorkers: [{ configPath: "./emulator/wrangler.toml" }] } : {}),
      }),
    ],
    environments: {
      client: {
        build: {
          manifest: true,
          rollupOptions: { input: CLIENT_ENTRY },
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
