import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig } from "vite";
import { CLIENT_ENTRY, islandsManifestPlugin } from "./islands/vite-plugin";
import { brandDataPlugin } from "./themes/vite-plugin";

// CLOUDFLARE_ENV=dev (from .env.development under `vite dev`, or set by the tests) selects wrangler's
// dev environment: the emulator binding and the /__emulator route exist only there.
export default defineConfig({
  plugins: [brandDataPlugin(), islandsManifestPlugin(), cloudflare({ configPath: "./wrangler.toml" })],
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
});
