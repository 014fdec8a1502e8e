import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Contract tests of the emulator, run inside workerd with the emulator itself as `main`. */
export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("./wrangler.toml", import.meta.url)) },
      main: fileURLToPath(new URL("./index.ts", import.meta.url)),
    }),
  ],
  test: {
    name: "emulator",
    dir: fileURLToPath(new URL("../test/emulator", import.meta.url)),
    exclude: ["**/bundle.test.ts"],
    // Every file resets the one shared "global" state object, so files must not overlap.
    fileParallelism: false,
  },
});
