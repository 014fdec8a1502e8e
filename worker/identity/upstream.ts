import type { AppContext } from "../context";

/** Every upstream call gives up after this long (UPSTREAM_TIMEOUT_MS overrides); the user sees the product §8 modal rather than a hang. */
const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

function upstreamTimeoutMs(env: Env): number {
  const configured = Number(env.UPSTREAM_TIMEOUT_MS);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_UPSTREAM_TIMEOUT_MS;
}

export class UpstreamUnavailableError extends Error {
  override name = "UpstreamUnavailableError";
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

// docs/passkeys.md: a passkey's credential ID names one authenticator of one user, and docs/devices.md's device id one
// device of one user; logs and error reports name the call's route instead.
const ID_SEGMENT =
  /^(\/auth\/v1\/(?:passkeys|user\/devices)\/)(?!registration\/|attestation\/|assertion\/|signout-others$)[^/?]+/;

/** A call's path as logs and error reports name it: never its query, nor the passkey or device it is about. */
export function loggedPath(pathAndQuery: string): string {
  return (pathAndQuery.split("?")[0] ?? "").replace(ID_SEGMENT, "$1{id}");
}

/**
 * The one way out to the identity API and the OAuth2 server: the IDENTITY service binding when bound
 * (dev, tests, same-account deploys), else IDENTITY_API_ORIGIN. The upstream learns the site's public
 * origin from X-Forwarded-* set here, never from what the client sent.
 */
export async function upstreamFetch(c: AppContext, pathAndQuery: string, init: RequestInit = {}): Promise<Response> {
  const site = new URL(c.req.url);
  const headers = new Headers(init.headers);
  for (const name of [...headers.keys()]) if (name.startsWith("x-forwarded-")) headers.delete(name);
  headers.set("X-Forwarded-Proto", site.protocol.replace(":", ""));
  headers.set("X-Forwarded-Host", site.host);
  const clientIp = c.req.header("cf-connecting-ip");
  if (clientIp) headers.set("X-Forwarded-For", clientIp);
  const request = new Request(
    new URL(pathAndQuery, c.env.IDENTITY ? "https://identity.internal" : c.env.IDENTITY_API_ORIGIN),
    {
      ...init,
      headers,
      redirect: "manual",
      signal: AbortSignal.timeout(upstreamTimeoutMs(c.env)),
    },
  );
  const started = performance.now();
  // The request's log line names the call by method and path, never its query (challenges, codes).
  const record = (status: number | "timeout" | "unreachable") =>
    c.get("log")?.upstream.push({
      call: `${request.method} ${loggedPath(new URL(request.url).pathname)}`,
      status,
      ms: Math.round(performance.now() - started),
    });
  try {
    const response = await (c.env.IDENTITY ? c.env.IDENTITY.fetch(request) : fetch(request));
    record(response.status);
    return response;
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    record(timedOut ? "timeout" : "unreachable");
    throw new UpstreamUnavailableError(
      error instanceof Error ? `${error.name}: ${error.message}` : "upstream call failed",
      timedOut,
    );
  }
}
