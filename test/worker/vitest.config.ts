import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { emulatorWorkerOptions } from "../../emulator/bundle.mjs";
import { islandsManifestPlugin } from "../../islands/vite-plugin";
import { brandDataPlugin } from "../../themes/vite-plugin";

// The site runs as `main` in workerd with wrangler's dev environment; the emulator, bundled first, is the
// second worker behind the IDENTITY service binding, exactly as under `npm run dev`.
export default defineConfig(async () => ({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  plugins: [
    brandDataPlugin(),
    islandsManifestPlugin(),
    cloudflareTest({
      main: "./worker/index.tsx",
      wrangler: { configPath: "./wrangler.toml", environment: "dev" },
      // A short upstream timeout so the timeout test does not wait ten seconds.
      miniflare: { bindings: { UPSTREAM_TIMEOUT_MS: "400" }, workers: [await emulatorWorkerOptions()] },
    }),
  ],
  test: {
    name: "worker",
    include: ["test/worker/**/*.test.{ts,tsx}"],
  },
}));
