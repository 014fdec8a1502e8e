import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { hostFromAuthority } from "../../worker/localHttps.vite-plugin";

// Over `npm run dev:https` (HTTP/2) the worker's request URL lost its port, because the Cloudflare plugin
// reads the raw Host header, which an HTTP/2 request does not have.

/** What Node's HTTP/2 compatibility layer gives a middleware: pseudo-headers, no Host, raw headers read anew. */
function http2Request(authority: string): IncomingMessage {
  const raw = [":method", "GET", ":authority", authority, ":path", "/signIn"];
  const request = { headers: { ":authority": authority } } as unknown as IncomingMessage;
  Object.defineProperty(request, "rawHeaders", { get: () => [...raw], configurable: true });
  return request;
}

const rawHost = (request: IncomingMessage) => request.rawHeaders[request.rawHeaders.indexOf("host") + 1];

describe("the local HTTPS server keeps the port of the site's URL", () => {
  it("gives an HTTP/2 request the Host its :authority names, port included", () => {
    const request = http2Request("localhost:8443");
    expect(request.rawHeaders).not.toContain("host");
    hostFromAuthority(request);
    expect(rawHost(request)).toBe("localhost:8443");
    expect(request.headers.host).toBe("localhost:8443");
  });

  it("leaves an HTTP/1.1 request's own Host alone", () => {
    const request = {
      headers: { host: "localhost:8443" },
      rawHeaders: ["Host", "localhost:8443"],
    } as unknown as IncomingMessage;
    hostFromAuthority(request);
    expect(request.rawHeaders).toEqual(["Host", "localhost:8443"]);
  });
});
