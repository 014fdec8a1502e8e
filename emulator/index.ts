import type { EmulatorEnv } from "./env";
import { dropHeader } from "./state/faults";

export { IdentityState } from "./identityState";

export default {
  async fetch(request, env) {
    // Bodies are small; buffering them lets the state object answer early (faults, 401) without
    // leaving a half-read request stream behind.
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const forwarded = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      redirect: "manual",
    });
    const response = await env.IDENTITY_STATE.getByName("global").fetch(forwarded);
    // An injected "dropped connection": the caller's fetch must reject, as on a real network failure. workerd logs
    // every error a handler throws as an uncaught exception; the workerd test pool leaves out those that say an
    // operation was canceled, as this one does, so that a passing run shows no log line per injected fault.
    if (response.headers.has(dropHeader))
      throw new Error("disconnected: operation canceled (a connection dropped by an injected emulator fault)");
    return response;
  },
} satisfies ExportedHandler<EmulatorEnv>;
