import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lighthouse from "lighthouse";
import { computeMedianRun } from "lighthouse/core/lib/median-run.js";
import { ReportGenerator } from "lighthouse/report/generator/report-generator.js";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium } from "../../test/e2e/chromium";
import { buildForE2e } from "../../test/e2e/server";
import { startWorkerdSite } from "../../test/e2e/workerdSite";
import { type AppBrand, appStart } from "../../test/support/appStart";
import { devSessionKeys } from "../../test/support/devKeys";
import { emulatorClient, PASSWORD } from "../../test/support/emulatorClient";
import { DEVICE_CREDENTIAL_COOKIE, testDeviceCookieValue } from "../../test/support/testDevice";
import { GUNGNIR, PARTNER, withdrawalPush } from "../../test/support/vocabulary";
import type { View } from "../../worker/session/authRequest";
import { startCompressingProxy } from "./compressingProxy";

// `npm run lighthouse`: Lighthouse's mobile preset (Moto G Power screen, slow 4G, 4x CPU
// slowdown) with DevTools throttling, so the preset's latency, bandwidth and CPU slowdown are applied to the real
// load rather than simulated from an unthrottled one, on seven screens of the built site on the local workerd, in
// Debian's Chromium. Chromium loads the site through a proxy that compresses as the edge does (compressingProxy.ts).
// A screen that needs journey state is reached by driving the real journey in the same browser profile first, so its
// cookies exist; Lighthouse then loads the screen's address. The profile is the test device (test/support/testDevice.ts),
// which the seeded users know, so no sign-in stops at the new-device confirmation (docs/devices.md). Sign-in is
// scored from the brand's entry, as the app opens it, so its redirects are part of what is measured; so is the
// operation confirmation, from the entry with a request_uri the app's server has just pushed. Each screen
// is loaded RUNS times and every run counts: the medians and each run are printed. Nothing here is a test.
//
// `--smoke` (.ci/run): one run per screen (LIGHTHOUSE_RUNS still sets it), so that a tool that breaks fails CI: a
// journey that goes wrong, a screen Lighthouse cannot score or lands beside, fail the run; a goal missed in one run on
// a CI machine is printed, not failed.

const ROOT = process.cwd();
/** The compressing proxy's port, the address Chromium loads; workerd listens on SITE_PORT behind it. */
const PORT = Number(process.env.LIGHTHOUSE_PORT ?? 4349);
const DEBUG_PORT = Number(process.env.LIGHTHOUSE_DEBUG_PORT ?? PORT + 1);
const SITE_PORT = Number(process.env.LIGHTHOUSE_SITE_PORT ?? PORT + 2);
const SMOKE = process.argv.includes("--smoke");
/** Each screen is loaded this many times; the tables show the median of every run, and every run. */
const RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? (SMOKE ? 1 : 5)));
const REPORTS = join(ROOT, "lighthouse-reports");
const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;
/** The targets: 100 in every category, and the largest contentful paint under 1.2 s. */
const GOAL = { score: 100, lcpMs: 1200 };
/** LIGHTHOUSE_PAGES="sign-in,reset" scores only those (names as in the table). */
const ONLY = process.env.LIGHTHOUSE_PAGES?.split(",").map((name) => name.trim());
/**
 * LIGHTHOUSE_WITHOUT_HEADERS="cross-origin-opener-policy": the proxy takes these response headers off, to measure
 * what one costs the first paint (docs/performance.md, "Measured and left alone"). The site still sends them; such a run is not the site's score.
 */
const WITHOUT_HEADERS = (process.env.LIGHTHOUSE_WITHOUT_HEADERS ?? "")
  .split(",")
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);

type LighthouseResult = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"];

interface Screen {
  name: string;
  /** Drives the journey up to the screen in the given context (its cookies stay); answers the URL to score. */
  reach(context: BrowserContext, baseUrl: string, run: number): Promise<string>;
  /** The path Lighthouse must end on: a journey that went wrong is not scored as if it were the screen. */
  path: string;
  /** Audits Lighthouse must not run on this screen (none weighs in a score), as `skipAudits` in its settings. */
  skipAudits?: string[];
}

const idpOf = (baseUrl: string) =>
  emulatorClient((path, init) => fetch(`${baseUrl}${path}`, { ...init, redirect: "manual" }));

/** The app's start URL for a view, with a fresh PKCE challenge (test/support/appStart.ts). */
async function entryUrl(baseUrl: string, brand: AppBrand, view: View): Promise<string> {
  return `${baseUrl}${(await appStart(brand, view)).path}`;
}

async function pressButton(page: Page, label: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: label, exact: true }).click()]);
}

async function expectPath(page: Page, path: string): Promise<void> {
  const at = new URL(page.url()).pathname;
  if (at !== path) throw new Error(`the journey reached ${at}, not ${path}`);
}

/** Opens the app's start for a view and signs the user in; answers the page where the sign-in led. */
async function signIn(context: BrowserContext, baseUrl: string, brand: AppBrand, view: View, email: string) {
  await idpOf(baseUrl).seed({ email });
  const page = await context.newPage();
  await page.goto(await entryUrl(baseUrl, brand, view));
  await page.locator("#field-username").fill(email);
  await page.locator("#field-password").fill(PASSWORD);
  await pressButton(page, "ログイン");
  return page;
}

/**
 * docs/operations.md: the app's server pushes a withdrawal of 100,000 yen for gungnir-aurora to the site's
 * `/oauth2/par` (the narrow proxy lets it through), with a PKCE challenge and a state of its own, as the engine
 * journey does (test/e2e/engineJourneys.ts); answers the single-use request_uri.
 */
async function pushWithdrawal(baseUrl: string): Promise<string> {
  const verifier = randomBytes(32).toString("base64url");
  const response = await fetch(`${baseUrl}/oauth2/par`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: withdrawalPush(
      createHash("sha256").update(verifier).digest("base64url"),
      `lighthouse-${randomBytes(16).toString("base64url")}`,
    ),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`the push answered ${response.status}: ${text}`);
  const { request_uri: requestUri } = JSON.parse(text) as { request_uri?: string };
  if (!requestUri) throw new Error(`the push answered no request_uri: ${text}`);
  return requestUri;
}

const SCREENS: Screen[] = [
  {
    name: "sign-in",
    path: `/${GUNGNIR.serviceId}/auth`,
    // No state needed: the app's start answers the sign-in screen itself, a fresh authorization on every load.
    reach: async (_context, baseUrl) => entryUrl(baseUrl, GUNGNIR, "signIn"),
  },
  {
    name: "sign-up password",
    path: "/signUp/inputPassword",
    async reach(context, baseUrl, run) {
      const page = await context.newPage();
      await page.goto(await entryUrl(baseUrl, GUNGNIR, "signUp"));
      // The app's start answers the sign-up screen itself, at its own address.
      await expectPath(page, `/${GUNGNIR.serviceId}/auth`);
      await page.locator("#field-email").fill(`lighthouse.signup.${run}@example.com`);
      await pressButton(page, "次へ");
      await expectPath(page, "/signUp/inputPassword");
      await page.close();
      return `${baseUrl}/signUp/inputPassword`;
    },
  },
  {
    name: "reset",
    path: "/resetPassword",
    reach: async (_context, baseUrl) => `${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`,
  },
  {
    name: "TOTP setup",
    path: "/mfa/setup/TOTP",
    async reach(context, baseUrl, run) {
      const page = await signIn(context, baseUrl, GUNGNIR, "mfaSetUp", `lighthouse.totp.${run}@example.com`);
      await expectPath(page, "/mfa/setup");
      await page.close();
      return `${baseUrl}/mfa/setup/TOTP`;
    },
  },
  {
    name: "security",
    path: "/security",
    async reach(context, baseUrl, run) {
      const page = await signIn(context, baseUrl, GUNGNIR, "security", `lighthouse.security.${run}@example.com`);
      await expectPath(page, "/security");
      await page.close();
      return `${baseUrl}/security`;
    },
  },
  {
    name: "consent",
    path: `/${PARTNER.serviceId}/consent`,
    async reach(context, baseUrl, run) {
      const page = await signIn(context, baseUrl, PARTNER, "extSignIn", `lighthouse.consent.${run}@example.com`);
      await expectPath(page, `/${PARTNER.serviceId}/consent`);
      await page.close();
      return `${baseUrl}/${PARTNER.serviceId}/consent?client_id=${PARTNER.clientId}`;
    },
  },
  {
    name: "operation confirmation",
    path: `/${GUNGNIR.serviceId}/auth`,
    // docs/operations.md "On the site": the app opens the site's entry with its client_id and a pushed request_uri,
    // and the entry answers the screen itself, with no redirect. A request_uri is spent by its first load, so every
    // load is a fresh push: scoreWithRetries calls reach before each run and each retry. The same path with a spent
    // or refused request_uri is the operationUnavailable modal (400), which Lighthouse refuses to score (its
    // ERRORED_DOCUMENT_REQUEST), so a run that lands here with figures is the screen.
    reach: async (_context, baseUrl) =>
      `${baseUrl}/${GUNGNIR.serviceId}/auth?${new URLSearchParams({
        client_id: GUNGNIR.clientId,
        request_uri: await pushWithdrawal(baseUrl),
      })}`,
    // Lighthouse's back/forward cache check leaves the page and goes back to it after the trace; a page the cache
    // did not keep (this headless Chromium keeps none, and the site's pages are no-store) is then loaded again, a
    // second load of the spent request_uri (seen at the proxy). Its audit weighs nothing, so it is skipped here, and
    // Lighthouse loads the address once.
    skipAudits: ["bf-cache"],
  },
];

interface RunFigures {
  scores: Record<(typeof CATEGORIES)[number], number>;
  fcpMs: number;
  lcpMs: number;
  redirects: number;
  /** The time the redirects took, as Lighthouse observed it (throttled). */
  redirectMs: number;
  /** Lighthouse's measure of this machine's speed during the run (higher is faster; it slows as the machine is busy). */
  benchmarkIndex: number;
}

interface Row {
  screen: string;
  /** Each figure the median over every run, taken on its own. */
  median: RunFigures;
  runs: RunFigures[];
  /** The weighted audits short of full marks in any run, with the runs they were short in. */
  failing: string[];
}

const ATTEMPTS = 3;

/**
 * The profile as the test device (test/support/testDevice.ts): its sealed credential for the site's host, planted
 * through CDP (Playwright's addCookies always sends a Domain, which a `__Host-` cookie refuses). Lighthouse keeps it,
 * as it resets no storage (`disableStorageReset`).
 */
async function asTestDevice(context: BrowserContext, baseUrl: string): Promise<void> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  try {
    const { success } = await cdp.send("Network.setCookie", {
      name: DEVICE_CREDENTIAL_COOKIE,
      value: await testDeviceCookieValue(devSessionKeys()),
      url: `${baseUrl}/`,
      path: "/",
      secure: true,
      httpOnly: true,
      sameSite: "Lax",
    });
    if (!success) throw new Error(`Chromium refused the test device's cookie for ${baseUrl}`);
  } finally {
    await cdp.detach();
    await page.close();
  }
}

/**
 * One Lighthouse run of a screen: the journey first, then Lighthouse loads the screen's URL with the HTTP cache
 * emptied (its own storage reset, which would also clear the cookies the journey left, is off) under DevTools
 * throttling: the mobile preset's latency, bandwidth and CPU slowdown applied to the real load. A run for which
 * Chromium recorded no trace (a runtime error such as NO_NAVSTART on a busy machine) has no figures at all and is
 * tried again; every run that has figures counts.
 */
async function scoreWithRetries(
  context: BrowserContext,
  baseUrl: string,
  screen: Screen,
  run: number,
): Promise<LighthouseResult> {
  for (let attempt = 1; ; attempt++) {
    const url = await screen.reach(context, baseUrl, run * ATTEMPTS + attempt);
    const blank = await context.newPage();
    const cdp = await context.newCDPSession(blank);
    await cdp.send("Network.clearBrowserCache");
    await cdp.detach();
    await blank.close();
    const result = await quietly(() =>
      lighthouse(url, {
        port: DEBUG_PORT,
        output: "json",
        logLevel: "error",
        onlyCategories: [...CATEGORIES],
        disableStorageReset: true,
        throttlingMethod: "devtools",
        ...(screen.skipAudits ? { skipAudits: screen.skipAudits } : {}),
      }),
    );
    if (!result) throw new Error(`Lighthouse gave no result for ${screen.name}`);
    const failed = result.lhr.runtimeError;
    if (failed && attempt < ATTEMPTS) {
      console.log(`[lighthouse] ${screen.name}: ${failed.code}, trying again`);
      continue;
    }
    if (failed) throw new Error(`${screen.name}: ${failed.message}`);
    const landed = new URL(result.lhr.finalDisplayedUrl).pathname;
    if (landed !== screen.path) throw new Error(`${screen.name}: Lighthouse landed on ${landed}, not ${screen.path}`);
    return result.lhr;
  }
}

/**
 * Lighthouse's trace engine prints a LanternError for its optional "insights" graph of a navigation that was
 * redirected ("cycle detected"); the scored metrics do not use that graph, so the line is noise. Other errors pass.
 */
async function quietly<T>(run: () => Promise<T>): Promise<T> {
  const error = console.error;
  console.error = (...args: unknown[]) => {
    const [first] = args;
    if (first instanceof Error && first.constructor.name === "LanternError" && /cycle detected/.test(first.message))
      return;
    error(...args);
  };
  try {
    return await run();
  } finally {
    console.error = error;
  }
}

function figures(lhr: LighthouseResult): RunFigures {
  const redirectsAudit = lhr.audits.redirects;
  // The audit lists every document of the chain, the final one included; none when nothing redirected.
  const chain = (redirectsAudit?.details as { items?: unknown[] } | undefined)?.items ?? [];
  return {
    scores: Object.fromEntries(
      CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]),
    ) as RunFigures["scores"],
    fcpMs: Math.round(lhr.audits["first-contentful-paint"]?.numericValue ?? Number.NaN),
    lcpMs: Math.round(lhr.audits["largest-contentful-paint"]?.numericValue ?? Number.NaN),
    redirects: Math.max(0, chain.length - 1),
    redirectMs: Math.round(redirectsAudit?.numericValue ?? 0),
    benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

function summarise(screen: Screen, lhrs: LighthouseResult[]): Row {
  const runs = lhrs.map(figures);
  const of = (pick: (run: RunFigures) => number) => median(runs.map(pick));
  const shortIn = new Map<string, number[]>();
  lhrs.forEach((lhr, index) => {
    for (const category of Object.values(lhr.categories))
      for (const ref of category.auditRefs) {
        const audit = lhr.audits[ref.id];
        if (ref.weight === 0 || (audit?.score ?? 1) >= 1) continue;
        const key = `${category.id}: ${ref.id}`;
        shortIn.set(key, [...(shortIn.get(key) ?? []), index + 1]);
      }
  });
  return {
    screen: screen.name,
    median: {
      scores: Object.fromEntries(CATEGORIES.map((id) => [id, of((run) => run.scores[id])])) as RunFigures["scores"],
      fcpMs: of((run) => run.fcpMs),
      lcpMs: of((run) => run.lcpMs),
      redirects: of((run) => run.redirects),
      redirectMs: of((run) => run.redirectMs),
      benchmarkIndex: of((run) => run.benchmarkIndex),
    },
    runs,
    failing: [...shortIn].map(
      ([audit, inRuns]) => `${audit} (run${inRuns.length > 1 ? "s" : ""} ${inRuns.join(", ")})`,
    ),
  };
}

const rounded = (value: number | undefined) => (value === undefined ? "?" : String(Number(value.toFixed(2))));
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function cells(figures: RunFigures): string[] {
  return [
    String(figures.scores.performance),
    String(figures.scores.accessibility),
    String(figures.scores["best-practices"]),
    seconds(figures.lcpMs),
    seconds(figures.fcpMs),
    `${figures.redirects} (${figures.redirectMs} ms)`,
    String(figures.benchmarkIndex),
  ];
}

function table(head: string[], lines: string[][]): string {
  const widths = head.map((cell, i) => Math.max(cell.length, ...lines.map((line) => line[i]?.length ?? 0)));
  const format = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [format(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...lines.map(format)].join("\n");
}

const FIGURE_HEAD = ["perf", "a11y", "best-pr.", "LCP", "FCP", "redirects", "benchmark"];

async function main() {
  ensureChromium(CHROMIUM_PATH);
  if (!process.argv.includes("--no-build")) buildForE2e();
  const started = performance.now();
  // The build in workerd alone, as the browser tests serve it (test/e2e/workerdSite.ts).
  const site = await startWorkerdSite(SITE_PORT);
  // Chromium loads the site through the proxy, compressed as the edge serves it (compressingProxy.ts).
  const proxy = await startCompressingProxy(PORT, site.url, WITHOUT_HEADERS);
  const profile = mkdtempSync(join(tmpdir(), "lighthouse-profile-"));
  // One persistent profile: the journey's pages (playwright) and Lighthouse's page (its own connection on the
  // debugging port) share the default browser context, so the journey's cookies are there when Lighthouse loads.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${DEBUG_PORT}`],
    locale: "ja-JP",
  });
  const rows: Row[] = [];
  let throttling: LighthouseResult["configSettings"]["throttling"] | undefined;
  try {
    await asTestDevice(context, proxy.url);
    await idpOf(proxy.url).reset();
    rmSync(REPORTS, { recursive: true, force: true });
    mkdirSync(REPORTS, { recursive: true });
    for (const screen of SCREENS.filter(({ name }) => !ONLY || ONLY.includes(name))) {
      const runs: LighthouseResult[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await scoreWithRetries(context, proxy.url, screen, run));
      throttling ??= runs[0]?.configSettings.throttling;
      // Lighthouse's own choice of a representative run (by FCP and TTI), over every run, for the saved report.
      const representative = computeMedianRun(runs);
      const slug = screen.name.replace(/\W+/g, "-");
      writeFileSync(join(REPORTS, `${slug}.json`), JSON.stringify(representative, null, 2));
      writeFileSync(join(REPORTS, `${slug}.html`), ReportGenerator.generateReportHtml(representative));
      const row = summarise(screen, runs);
      rows.push(row);
      console.log(
        `[lighthouse] ${screen.name}: ${CATEGORIES.map((id) => row.median.scores[id]).join("/")}, ` +
          `LCP ${row.median.lcpMs} ms (median of ${runs.length} runs; LCP per run ${row.runs.map((r) => r.lcpMs).join(", ")} ms)`,
      );
    }
  } finally {
    await context.close();
    await proxy.close();
    await site.stop();
    rmSync(profile, { recursive: true, force: true });
  }
  const minutes = (performance.now() - started) / 60_000;

  console.log(
    `\nLighthouse, mobile preset with DevTools throttling (applied to the real load: ${rounded(throttling?.requestLatencyMs)} ms ` +
      `request latency, ${rounded(throttling?.downloadThroughputKbps)} kbit/s down, ${rounded(throttling?.uploadThroughputKbps)} kbit/s up, ` +
      `${throttling?.cpuSlowdownMultiplier}x CPU slowdown), text compressed as the edge does (Brotli), ` +
      `${RUNS} run${RUNS > 1 ? "s" : ""} per page, every run counted; ${proxy.url} in front of workerd ${site.url}, ${minutes.toFixed(1)} min\n`,
  );
  if (WITHOUT_HEADERS.length)
    console.log(
      `WITHOUT the site's response headers ${WITHOUT_HEADERS.join(", ")} (LIGHTHOUSE_WITHOUT_HEADERS): a measurement of what they cost, not the site's score\n`,
    );
  console.log("Medians (each figure the median over the runs on its own):\n");
  console.log(
    table(
      ["page", ...FIGURE_HEAD],
      rows.map((row) => [row.screen, ...cells(row.median)]),
    ),
  );
  console.log("\nEvery run:\n");
  console.log(
    table(
      ["page", "run", ...FIGURE_HEAD],
      rows.flatMap((row) => row.runs.map((run, index) => [row.screen, String(index + 1), ...cells(run)])),
    ),
  );
  const short = rows.filter(
    (row) => CATEGORIES.some((id) => row.median.scores[id] < GOAL.score) || !(row.median.lcpMs < GOAL.lcpMs),
  );
  for (const row of short) {
    console.log(`\n${row.screen} is short of ${GOAL.score}/${GOAL.score}/${GOAL.score} with LCP < ${GOAL.lcpMs} ms:`);
    for (const audit of row.failing) console.log(`  - ${audit}`);
  }
  console.log(
    "\nredirects: the redirects before the screen, and the time they took under the throttling. benchmark: Lighthouse's" +
      "\nmeasure of this machine's speed during the run (lower when the machine is busy, which slows every figure).",
  );
  console.log(`\nReports (Lighthouse's representative run of each page): ${REPORTS}/*.html and *.json`);
  if (WITHOUT_HEADERS.length) {
    console.log(`\nNot the site's score: ${WITHOUT_HEADERS.join(", ")} taken off every answer.`);
    process.exitCode = 1;
  } else if (short.length && SMOKE) {
    console.log(
      `\nGoal missed on ${short.length} of ${rows.length} pages in this smoke run (${RUNS} run${RUNS > 1 ? "s" : ""} a page): not counted.`,
    );
  } else if (short.length) {
    console.log(`\nGoal missed on ${short.length} of ${rows.length} pages.`);
    process.exitCode = 1;
  } else {
    console.log(`\nGoal met on all ${rows.length} pages.`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
