import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { emulatorWorkerOptions } from "./bundle.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Proves emulator/bundle.mjs: a stand-in site reaches the bundled emulator through an IDENTITY service binding. */
export default defineConfig({
  root,
  plugins: [
    cloudflareTest(async () => ({
      main: fileURLToPath(new URL("../test/emulator/bindingProbe.ts", import.meta.url)),
      miniflare: {
        compatibilityDate: "2026-05-01",
        compatibilityFlags: ["nodejs_compat"],
        serviceBindings: { IDENTITY: "emulator" },
        workers: [await emulatorWorkerOptions()],
      },
    })),
  ],
  test: {
    name: "emulator-bundle",
    dir: fileURLToPath(new URL("../test/emulator", import.meta.url)),
    include: ["**/bundle.test.ts"],
  },
});
