/** The smallest site stand-in: forwards every request to the emulator through the IDENTITY binding. */
interface ProbeEnv {
  IDENTITY: Fetcher;
}

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("x-forwarded-proto", url.protocol.replace(":", ""));
    headers.set("x-forwarded-host", url.host);
    return env.IDENTITY.fetch(new Request(request, { headers }));
  },
} satisfies ExportedHandler<ProbeEnv>;
