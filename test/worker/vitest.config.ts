import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { emulatorWorkerOptions } from "../../emulator/bundle.mjs";
import { islandsManifestPlugin } from "../../islands/vite-plugin.ts";
import { japanesePhrases } from "../../messages/vite-plugin.ts";
import { brandDataPlugin } from "../../themes/vite-plugin.ts";
import { releasePlugin } from "../../worker/release.vite-plugin.ts";
import { PREBUNDLE_CACHE_DIR, prebundledDeps } from "../support/prebundledDeps.ts";
import { sentryRecorder } from "../support/sentryRecorder.ts";

// As a project of the root config this file's folder is the root; every path is therefore absolute.
const fromRoot = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const emulator = await emulatorWorkerOptions();
// Production's rate limits (the dev environment raises the per-IP ones for a single local address); the tests
// give each journey its own client address, so only the tests that aim at a limit reach one.
// Two per-IP limits are lowered so that test/worker/rateLimit.test.ts reaches them in a few dozen requests. The tests'
// requests count on fakes of these bindings, with these limits and periods, on a clock the test moves
// (test/worker/rateLimits.ts, provided to them as `workerRateLimits`); one test counts on workerd's own.
const production = unstable_getMiniflareWorkerOptions(fromRoot("wrangler.toml")).workerOptions.ratelimits;
const ratelimits = {
  ...production,
  RL_READ_BY_IP: { simple: { limit: 40, period: 60 } },
  RL_CODE_BY_IP: { simple: { limit: 20, period: 60 } },
};

const PREBUNDLED = [
  "react",
  "react/jsx-runtime",
  "react-dom/server",
  "hono",
  "hono/body-limit",
  "hono/cookie",
  "hono/csrf",
  "hono/http-exception",
  "hono/tiny",
  "zod",
  "zod/mini",
  "jose",
  "otpauth",
  "qrcode",
  "@hono/zod-validator",
  "@sentry/cloudflare",
  "@sentry/cloudflare/request",
];

// The site runs as `main` in workerd with wrangler's dev environment; the emulator, bundled first, is the
// second worker behind the IDENTITY service binding, exactly as under `npm run dev`.
export default defineConfig({
  root: fromRoot(""),
  cacheDir: PREBUNDLE_CACHE_DIR,
  // The dev environment's dev-only routes (/__gallery), as vite.config.ts defines them for CLOUDFLARE_ENV=dev.
  define: { __DEV_ROUTES__: "true" },
  plugins: [
    // The site's own build plugins that change what it renders: its tests and the site import the same strings.
    japanesePhrases(),
    brandDataPlugin(),
    islandsManifestPlugin(),
    releasePlugin(),
    cloudflareTest({
      main: fromRoot("worker/index.tsx"),
      wrangler: { configPath: fromRoot("wrangler.toml"), environment: "dev" },
      // The dev environment's upstream timeout (production's 10 s), so that an ordinary call on a busy machine (PBKDF2
      // in the emulator) never times out; a request that tests the timeout asks for a short one of its own
      // (SHORT_TIMEOUT, test/worker/helpers.ts). No fixed answer time for the reset mail (RESET_ANSWER_MS "0", which
      // only the dev environment takes): its one test (test/worker/resetPassword.test.ts) sets the deployed value.
      miniflare: {
        bindings: { RESET_ANSWER_MS: "0" },
        workers: [emulator],
        ratelimits,
        // The site's only way out besides the IDENTITY binding: a fake Sentry (test/support/sentryRecorder.ts).
        outboundService: sentryRecorder,
      },
    }),
  ],
  test: {
    name: "worker",
    // A vitest worker imports the site once for all the files it runs, not once per file (about 4 s each): the
    // project went from 109 s to 45 s alone. The files share no state but the emulator's, where every journey has
    // its own users and client address; a file that spies on console restores it (logs.test.ts, resetPassword.test.ts).
    isolate: false,
    // One file at a time, whatever the machine: the files share the emulator, whose injected faults (the fault
    // matrix's every call × fault) a file running beside them would meet.
    maxWorkers: 1,
    // Its own group (after the others in a run of several projects): vitest runs projects of different maxWorkers
    // only in different groups.
    sequence: { groupOrder: 1 },
    dir: fromRoot("test/worker"),
    setupFiles: [fromRoot("test/support/phraseBreaks.setup.ts"), fromRoot("test/worker/rateLimits.setup.ts")],
    provide: { workerRateLimits: ratelimits },
    deps: prebundledDeps(PREBUNDLED),
  },
});
