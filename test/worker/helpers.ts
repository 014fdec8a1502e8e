import { createExecutionContext, env } from "cloudflare:test";
import worker from "../../worker/index";
import type { SealedCookieName, SealedState } from "../../worker/session/cookies";
import { emulatorClient } from "../support/emulatorClient";
import { formPost, sealedCookie as sealed } from "../support/forms";
import type { ScreenBrand, ScreenCase } from "../support/screens";

// The workerd layer's way to the site: its fetch handler, at a fixed public origin, with the dev environment's keys.

export const ORIGIN = "https://signin.test";

/**
 * A request to the site as the platform hands it over: the worker's own fetch handler, called in this isolate with
 * the dev environment and a fresh execution context (`waitUntil` work goes on after the answer, as on the edge).
 * Not `SELF.fetch`: in @cloudflare/vitest-pool-workers every SELF request costs more than the one before (about
 * 8 ms at first, 60 ms after 200 requests, 350 ms after 1,000; cloudflare/workers-sdk#15446), which made the
 * fault matrix take minutes. Static files are the platform's, not the worker's: tests of them use SELF.
 */
export async function siteFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init) as Request<unknown, IncomingRequestCfProperties>;
  const response = await worker.fetch(request, env, createExecutionContext());
  // What fetch() gives a response: the URL it answers (redirects are never followed here).
  Object.defineProperty(response, "url", { value: request.url });
  return response;
}

/** A Cookie header value holding one sealed state, sealed with this environment's keys. */
export function sealedCookie<N extends SealedCookieName>(which: N, value: SealedState<N>, ttlSeconds = 600) {
  return sealed(env.SESSION_KEYS ?? "", which, value, ttlSeconds);
}

/** A client address of its own (TEST-NET-2), so that the per-IP rate limits of one test never reach another. */
export function clientIp(): string {
  const byte = () => Math.floor(Math.random() * 256);
  return `198.51.${byte()}.${byte()}`;
}

export function get(path: string, cookies: string[] = [], headers: Record<string, string> = {}): Promise<Response> {
  return siteFetch(`${ORIGIN}${path}`, {
    headers: {
      "CF-Connecting-IP": clientIp(),
      ...(cookies.length ? { Cookie: cookies.join("; ") } : {}),
      ...headers,
    },
    redirect: "manual",
  });
}

export function postForm(
  path: string,
  form: Record<string, string>,
  cookies: string[] = [],
  origin = ORIGIN,
): Promise<Response> {
  const headers = {
    Origin: origin,
    "CF-Connecting-IP": clientIp(),
    ...(cookies.length ? { Cookie: cookies.join("; ") } : {}),
  };
  return siteFetch(`${ORIGIN}${path}`, formPost(form, headers));
}

/** The emulator's developer endpoints, reached through the site as under `npm run dev`. */
export const emulator = emulatorClient((path, init) => {
  const headers = new Headers(init?.headers);
  headers.set("CF-Connecting-IP", clientIp());
  return siteFetch(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" });
});

/** A screen of test/support/screens.ts as a browser in its journey gets it: its sealed state, the brand the browser
 * keeps from earlier in the journey (ARCHITECTURE §6), and the upstream answers the screen needs to render. */
export async function openScreen(screen: ScreenCase, brand: ScreenBrand): Promise<Response> {
  for (const fault of screen.upstream ?? []) await emulator.fault(fault);
  const sealed = await Promise.all(
    Object.entries(screen.state).map(([which, value]) => sealedCookie(which as SealedCookieName, value as never)),
  );
  return get(screen.path, [...sealed, `__Host-service=${brand.serviceId}`]);
}
