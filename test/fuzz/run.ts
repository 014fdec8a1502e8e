import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { sampleClientIds } from "../../themes/data/clients";
import type { SealedCookieName } from "../../worker/session/cookies";
import { buildForE2e, startPreview } from "../e2e/server";
import { sealedCookie } from "../support/forms";
import { type ScreenState, screenCases } from "../support/screens";
import { discoverTargets, type Send, siteProperty } from "./fuzzing";

// `npm run fuzz` (issue 11): the fuzzing of test/fuzz/fuzzing.ts at length, against the built site and the
// emulator on the local workerd. FUZZ_RUNS cases (12,000 unless set), FUZZ_SEED to replay a run. Its last line
// says how many cases ran and how many failed.

const ROOT = process.cwd();
const RUNS = Number(process.env.FUZZ_RUNS ?? 12_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const BRANDS = [
  { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir },
  { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner },
];

async function main(): Promise<number> {
  if (!process.argv.includes("--no-build")) buildForE2e();
  const { vars } = JSON.parse(readFileSync(join(ROOT, "dist/signin_site/wrangler.json"), "utf8")) as {
    vars: Record<string, string>;
  };
  const keys = vars.SESSION_KEYS ?? "";
  const cookieFor = async (state: ScreenState) =>
    (
      await Promise.all(
        Object.entries(state).map(([which, value]) => sealedCookie(keys, which as SealedCookieName, value as never)),
      )
    ).join("; ");
  const server = await startPreview(Number(process.env.FUZZ_PORT ?? 4321));
  try {
    // `vite preview` proxies to workerd in Node: when the worker answers a huge upload early (413), the proxy can
    // fail to finish sending it and answer 500 itself. Such an answer never came from the worker (no X-Request-Id):
    // it is sent once more, and counted.
    let transportRetries = 0;
    const send: Send = async (path, init) => {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual", ...init });
      if (response.status < 500 || response.headers.has("x-request-id")) return response;
      transportRetries++;
      await response.body?.cancel();
      return fetch(`${server.url}${path}`, { redirect: "manual", ...init });
    };
    const targets = (
      await Promise.all(BRANDS.map((brand) => discoverTargets(send, screenCases(brand), cookieFor, brand.serviceId)))
    ).flat();
    const forms = targets.filter((target) => target.kind === "form").length;
    console.log(`fuzzing ${forms} forms and ${targets.length - forms} query routes, seed ${SEED}`);
    const result = await fc.check(siteProperty(targets, send, server.url), { numRuns: RUNS, seed: SEED });
    if (result.failed) {
      console.log((fc.defaultReportMessage(result) ?? "").slice(0, 4000));
      console.log(`failure: ${String(result.errorInstance).slice(0, 1000)}`);
    }
    console.log(`dev-server transport errors sent again: ${transportRetries}`);
    console.log(`${result.numRuns} cases, ${result.failed ? 1 : 0} failures`);
    return result.failed ? 1 : 0;
  } finally {
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
