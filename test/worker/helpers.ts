import { createExecutionContext, env } from "cloudflare:test";
import { vi } from "vitest";
import worker from "../../worker/index";
import type { SealedCookieName, SealedState } from "../../worker/session/cookies";
import { emulatorClient } from "../support/emulatorClient";
import { formPost, sealedCookie as sealed } from "../support/forms";
import type { ScreenBrand, ScreenCase } from "../support/screens";
import { fakeRateLimits, platformRateLimits } from "./rateLimits";

// The workerd layer's way to the site: its fetch handler, at a fixed public origin, with the dev environment's keys.

export const ORIGIN = "https://signin.test";

/** What one request to the site sees beyond the project's environment (test/worker/vitest.config.ts). */
export interface SiteFetchOptions {
  /** Vars and bindings this request reads instead of the project's: e.g. `SHORT_TIMEOUT`, the deployed
   * `RESET_ANSWER_MS`, or the platform's rate limits (`withPlatformRateLimits()`). */
  env?: Partial<Env>;
  /** Its execution context, for a test that awaits its `waitUntil` work (`waitOnExecutionContext`). */
  ctx?: ExecutionContext;
}

/**
 * The environment a request to the site sees: the project's (the dev environment, test/worker/vitest.config.ts), its
 * rate-limit bindings the fakes on the test's clock (test/worker/rateLimits.ts: a limit test asserts the exact count
 * and moves `rateLimitClock` past the period), then the request's own `overrides`.
 */
export function projectEnv(overrides?: Partial<Env>): Env {
  return { ...env, ...fakeRateLimits(), ...overrides };
}

/** The options of a request that counts on workerd's own rate-limit bindings (wall-clock windows), not the fakes. */
export function withPlatformRateLimits(): SiteFetchOptions {
  return { env: platformRateLimits() };
}

/** The upstream timeout of a request that tests one; every other request keeps the project's (production's 10 s),
 * so that a slow ordinary call (PBKDF2 in the emulator on a busy machine) never times out in an unrelated test. */
export const SHORT_TIMEOUT_MS = 300;

/** The options of a request that tests the upstream timeout: `journey.postForm(path, form, SHORT_TIMEOUT)`. */
export const SHORT_TIMEOUT: SiteFetchOptions = { env: { UPSTREAM_TIMEOUT_MS: String(SHORT_TIMEOUT_MS) } };

/** The options of a request that meets an injected fault: a delayed one tests the timeout (`SHORT_TIMEOUT`), any
 * other keeps the project's. */
export function optionsForFault(fault: object): SiteFetchOptions | undefined {
  return "delayMs" in fault ? SHORT_TIMEOUT : undefined;
}

/** An emulator fault's delay that `SHORT_TIMEOUT` gives up on long before, however busy the machine:
 * `emulator.fault({ pathPattern, delayMs: PAST_SHORT_TIMEOUT_MS })`. */
export const PAST_SHORT_TIMEOUT_MS = SHORT_TIMEOUT_MS + 5000;

/**
 * A request to the site as the platform hands it over: the worker's own fetch handler, called in this isolate with
 * the dev environment (`projectEnv`: its rate limits on the test's clock) and a fresh execution context (`waitUntil`
 * work goes on after the answer, as on the edge).
 * Not `SELF.fetch`: in @cloudflare/vitest-pool-workers every SELF request costs more than the one before (about
 * 8 ms at first, 60 ms after 200 requests, 350 ms after 1,000; cloudflare/workers-sdk#15446), which made the
 * fault matrix take minutes. Static files are the platform's, not the worker's: tests of them use SELF.
 */
export async function siteFetch(
  input: string | URL | Request,
  init?: RequestInit,
  options: SiteFetchOptions = {},
): Promise<Response> {
  const request = fromOwnAddress(new Request(input, init)) as Request<unknown, IncomingRequestCfProperties>;
  const response = await worker.fetch(request, projectEnv(options.env), options.ctx ?? createExecutionContext());
  // What fetch() gives a response: the URL it answers (redirects are never followed here).
  Object.defineProperty(response, "url", { value: request.url });
  return response;
}

/** A Cookie header value holding one sealed state, sealed with this environment's keys. */
export function sealedCookie<N extends SealedCookieName>(which: N, value: SealedState<N>, ttlSeconds = 600) {
  return sealed(env.SESSION_KEYS ?? "", which, value, ttlSeconds);
}

/** The read class's per-IP limit, lowered for the workerd tests (test/worker/vitest.config.ts) so that reaching it is quick. */
export const TEST_READ_LIMIT = 40;

/** A client address of its own (TEST-NET-2), so that the per-IP rate limits of one test never reach another. */
export function clientIp(): string {
  const byte = () => Math.floor(Math.random() * 256);
  return `198.51.${byte()}.${byte()}`;
}

/**
 * The request from a client address of its own unless it names one (CF-Connecting-IP). Without one, every such request
 * of the project would count against the one "local" address of the per-IP limits (worker/rateLimit.ts), which a fast
 * run fills within a minute: a test that is not about a limit would get a 429.
 */
export function fromOwnAddress(request: Request): Request {
  if (request.headers.has("CF-Connecting-IP")) return request;
  const headers = new Headers(request.headers);
  headers.set("CF-Connecting-IP", clientIp());
  return new Request(request, { headers });
}

export function get(
  path: string,
  cookies: string[] = [],
  headers: Record<string, string> = {},
  options?: SiteFetchOptions,
): Promise<Response> {
  return siteFetch(
    `${ORIGIN}${path}`,
    {
      headers: {
        "CF-Connecting-IP": clientIp(),
        ...(cookies.length ? { Cookie: cookies.join("; ") } : {}),
        ...headers,
      },
      redirect: "manual",
    },
    options,
  );
}

export function postForm(
  path: string,
  form: Record<string, string>,
  cookies: string[] = [],
  origin = ORIGIN,
  options?: SiteFetchOptions,
): Promise<Response> {
  const headers = {
    Origin: origin,
    "CF-Connecting-IP": clientIp(),
    ...(cookies.length ? { Cookie: cookies.join("; ") } : {}),
  };
  return siteFetch(`${ORIGIN}${path}`, formPost(form, headers), options);
}

/** The emulator's developer endpoints, reached through the site as under `npm run dev`. */
export const emulator = emulatorClient((path, init) => {
  const headers = new Headers(init?.headers);
  headers.set("CF-Connecting-IP", clientIp());
  return siteFetch(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" });
});

/** A screen of test/support/screens.ts as a browser in its journey gets it: its sealed state, the brand the browser
 * keeps from earlier in the journey (architecture §6), and the upstream answers the screen needs to render. */
export async function openScreen(screen: ScreenCase, brand: ScreenBrand): Promise<Response> {
  for (const fault of screen.upstream ?? []) await emulator.fault(fault);
  const sealed = await Promise.all(
    Object.entries(screen.state).map(([which, value]) => sealedCookie(which as SealedCookieName, value as never)),
  );
  return get(screen.path, [...sealed, `__Host-service=${brand.serviceId}`]);
}

/** Every console line written while `act` runs (the request log lines among them). */
export async function loggedDuring(act: () => Promise<unknown>): Promise<string> {
  const spies = (["log", "info", "warn", "error"] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation(() => {}),
  );
  try {
    await act();
    return spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" "))).join("\n");
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** An identity API POST as the site makes it (its origin in the forwarding headers), with the user's bearer token. */
export function identityPost(path: string, token: string, body?: unknown): Promise<Response> {
  if (!env.IDENTITY) throw new Error("the worker project binds the emulator as IDENTITY");
  return env.IDENTITY.fetch(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      "X-Forwarded-Proto": "https",
      "X-Forwarded-Host": new URL(ORIGIN).host,
    },
    body: JSON.stringify(body ?? {}),
  });
}
