import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { constants, createBrotliCompress, createGzip } from "node:zlib";

// The edge compresses text for the browser (Brotli to a browser that offers it, Chrome does), and under throttled
// bandwidth the difference is most of a script's download. workerd compresses too, but its compressor holds a
// streamed page until it ends (test/e2e/workerdSite.ts). This proxy sits in front of the site on workerd, asks it
// for plain answers and compresses as the edge would: Brotli when the browser accepts it, gzip otherwise, for text
// types only; everything else (images other than SVG, redirects without bodies, 304s) passes as it came. Each chunk
// the site streams is flushed at once, so a streamed page still arrives in its pieces.

/** Content types the edge compresses (its default list, for the types this site serves). */
const COMPRESSIBLE =
  /^(text\/(html|css|javascript|plain)|application\/(javascript|json|manifest\+json)|image\/svg\+xml)\b/;

/** Brotli quality 5, about what a CDN uses for content it compresses on the fly. */
const BROTLI_QUALITY = 5;

export interface CompressingProxy {
  url: string;
  close(): Promise<void>;
}

function encodingFor(acceptEncoding: string | undefined): "br" | "gzip" | undefined {
  const offered = (acceptEncoding ?? "").split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  if (offered.includes("br")) return "br";
  if (offered.includes("gzip")) return "gzip";
  return undefined;
}

/**
 * Listens on `port` (127.0.0.1) and forwards every request to `upstream`. The Host header passes unchanged, so the
 * worker sees the origin the browser uses (its redirects and Origin checks name the proxy's address).
 * `withoutHeaders` (lower-case names) are taken off every answer: a measurement of what a header costs the browser,
 * never a setting of the site (`LIGHTHOUSE_WITHOUT_HEADERS`, docs/benchmarks.md; what COOP costs: docs/performance.md).
 */
export async function startCompressingProxy(
  port: number,
  upstream: string,
  withoutHeaders: readonly string[] = [],
): Promise<CompressingProxy> {
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = { ...incoming.headers };
    // Asking for identity keeps workerd's answer plain.
    delete headers["accept-encoding"];
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers,
      },
      (answer) => {
        for (const name of withoutHeaders) delete answer.headers[name];
        const status = answer.statusCode ?? 502;
        const type = String(answer.headers["content-type"] ?? "");
        const encoding = encodingFor(incoming.headers["accept-encoding"]);
        const hasBody = incoming.method !== "HEAD" && status !== 204 && status !== 304 && status >= 200;
        if (!encoding || !hasBody || answer.headers["content-encoding"] || !COMPRESSIBLE.test(type)) {
          outgoing.writeHead(status, answer.headers);
          answer.pipe(outgoing);
          return;
        }
        const { "content-length": _length, ...rest } = answer.headers;
        const vary = rest.vary ? `${rest.vary}, Accept-Encoding` : "Accept-Encoding";
        outgoing.writeHead(status, { ...rest, "content-encoding": encoding, vary });
        const compressor =
          encoding === "br"
            ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })
            : createGzip();
        compressor.pipe(outgoing);
        answer.on("data", (chunk: Buffer) => {
          compressor.write(chunk);
          compressor.flush();
        });
        answer.on("end", () => compressor.end());
        answer.on("error", () => outgoing.destroy());
      },
    );
    forward.on("error", () => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end("the site did not answer");
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
