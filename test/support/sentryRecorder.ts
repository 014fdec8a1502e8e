// A local fake DSN endpoint: the workerd tests' outbound fetches land here, in Node. Envelopes posted
// to https://sentry.test/api/<project>/envelope/ are kept; GET https://sentry.test/__envelopes answers them and
// DELETE forgets them. Calls to https://identity.test go on to the emulator, as production's calls to the identity API
// go out by fetch rather than the IDENTITY binding (a test that sees their spans sets IDENTITY_API_ORIGIN to it). Any
// other address is refused: the tests have no network.

export const SENTRY_TEST_DSN = "https://publickey@sentry.test/42";

/** The identity API's origin for a request that goes out by fetch, traced as production's calls are. */
export const IDENTITY_TEST_ORIGIN = "https://identity.test";

/** What miniflare hands an outbound service besides the request: the emulator is one of its workers. */
interface Workers {
  getWorker(name: string): Promise<{ fetch(input: string, init: RequestInit): Promise<Response> }>;
}

const recorded: string[] = [];

export async function sentryRecorder(request: Request, workers?: Workers): Promise<Response> {
  const url = new URL(request.url);
  if (url.origin === IDENTITY_TEST_ORIGIN && workers) {
    const emulator = await workers.getWorker("emulator");
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    return emulator.fetch(request.url, { method: request.method, headers: request.headers, body, redirect: "manual" });
  }
  if (url.hostname !== "sentry.test") return new Response(`no network in tests: ${url.origin}`, { status: 502 });
  if (url.pathname === "/__envelopes") {
    if (request.method === "DELETE") recorded.length = 0;
    return Response.json(recorded);
  }
  if (/^\/api\/\d+\/envelope\/?$/.test(url.pathname)) {
    recorded.push(await request.text());
    return Response.json({ id: "recorded" });
  }
  return new Response("not found", { status: 404 });
}
