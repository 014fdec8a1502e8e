import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { PREBUNDLE_CACHE_DIR, prebundledDeps } from "../test/support/prebundledDeps.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Contract tests of the emulator, run inside workerd with the emulator itself as `main`. */
export default defineConfig({
  root,
  cacheDir: PREBUNDLE_CACHE_DIR,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: fileURLToPath(new URL("./wrangler.toml", import.meta.url)) },
      main: fileURLToPath(new URL("./index.ts", import.meta.url)),
    }),
  ],
  test: {
    name: "emulator",
    // As the worker project: a vitest worker loads the emulator once for all its files (about 3 s a file before);
    // each file has its own instance of the state object (fileState, test/emulator/emulatorClient.ts).
    isolate: false,
    dir: fileURLToPath(new URL("../test/emulator", import.meta.url)),
    exclude: ["**/bundle.test.ts"],
    deps: prebundledDeps([
      "hono",
      "hono/cookie",
      "hono/utils/http-status",
      "jose",
      "otpauth",
      "zod",
      "zod/mini",
      "oauth4webapi",
      "@simplewebauthn/server",
    ]),
  },
});
