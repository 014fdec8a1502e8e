// A local fake DSN endpoint: the workerd tests' outbound fetches land here, in Node. Envelopes posted
// to https://sentry.test/api/<project>/envelope/ are kept; GET https://sentry.test/__envelopes answers them and
// DELETE forgets them. Any other address is refused: the tests have no network.

export const SENTRY_TEST_DSN = "https://publickey@sentry.test/42";

const recorded: string[] = [];

export async function sentryRecorder(request: Request): Promise<Response> {
  const url = new URL(request.url);
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
