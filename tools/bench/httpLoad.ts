import { connect, type Socket } from "node:net";

// A wrk-like closed-loop load on one URL (`wrk -t2 -c8 -d8s`): a fixed number of keep-alive connections,
// each sending its next request as soon as the previous answer has arrived whole, for a fixed time. Raw HTTP/1.1
// over node:net rather than node:http, so that the load generator, which shares the machine's cores with workerd,
// spends as little of them as it can per request: requests are written from a template and answers are only
// framed (status line, Content-Length or chunked), never parsed further. Every request comes from a client address
// of its own (CF-Connecting-IP, which miniflare keeps as it is), so the per-IP rate limiter never answers instead
// of the page.

export interface LoadResult {
  url: string;
  /** Answers of any status per second of the measured time. */
  rps: number;
  requests: number;
  seconds: number;
  /** Answers other than 200, by status, and connection failures (status 0). */
  unexpected: Map<number, number>;
  /** Milliseconds from writing a request to its answer's last byte, sorted. */
  latencies: number[];
  /** Body bytes of the last answer (to see that the page is the page). */
  bodyBytes: number;
}

/**
 * One address per request from 198.18.0.0/15, the range set aside for benchmarks (RFC 2544): 131,072 of them, used
 * in turn. An address comes round again only after that many requests, so none reaches the per-IP limits.
 */
export function benchmarkAddress(n: number): string {
  const i = n % 131_072;
  return `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
}

const CRLF_CRLF = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

/**
 * Frames HTTP/1.1 answers out of a socket's bytes; `feed` answers the completed responses' statuses (at most one is
 * expected per request, closed loop). Knows Content-Length and chunked bodies, and no body for 1xx, 204 and 304.
 */
class ResponseFramer {
  private buffer: Buffer = Buffer.alloc(0);
  private status = 0;
  private closeAfter = false;
  /** What is being read: the head, a body of `remaining` bytes, a chunk-size line, or the trailers. */
  private state: "head" | "body" | "chunkSize" | "chunkData" | "chunkEnd" | "trailers" = "head";
  private remaining = 0;
  private bodyBytes = 0;

  /** Completed answers: status, body size, whether the server will close the connection after it. */
  feed(chunk: Buffer): Array<{ status: number; bodyBytes: number; close: boolean }> {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const done: Array<{ status: number; bodyBytes: number; close: boolean }> = [];
    const finish = () => {
      done.push({ status: this.status, bodyBytes: this.bodyBytes, close: this.closeAfter });
      this.state = "head";
    };
    for (;;) {
      if (this.state === "head") {
        const end = this.buffer.indexOf(CRLF_CRLF);
        if (end < 0) return done;
        const head = this.buffer.toString("latin1", 0, end);
        this.buffer = this.buffer.subarray(end + 4);
        const lines = head.split("\r\n");
        this.status = Number(lines[0]?.split(" ")[1] ?? 0);
        this.bodyBytes = 0;
        let length: number | undefined;
        let chunked = false;
        this.closeAfter = false;
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line
            .slice(colon + 1)
            .trim()
            .toLowerCase();
          if (name === "content-length") length = Number(value);
          else if (name === "transfer-encoding") chunked = value.includes("chunked");
          else if (name === "connection") this.closeAfter = value.includes("close");
        }
        if (this.status < 200 || this.status === 204 || this.status === 304) {
          if (this.status >= 200) finish();
          continue;
        }
        if (chunked) this.state = "chunkSize";
        else if (length !== undefined) {
          this.remaining = length;
          this.state = "body";
        } else throw new Error(`an answer (${this.status}) with neither Content-Length nor chunked framing`);
      }
      if (this.state === "body" || this.state === "chunkData") {
        const take = Math.min(this.remaining, this.buffer.length);
        this.buffer = this.buffer.subarray(take);
        this.remaining -= take;
        this.bodyBytes += take;
        if (this.remaining > 0) return done;
        if (this.state === "body") finish();
        else this.state = "chunkEnd";
        continue;
      }
      if (this.state === "chunkEnd") {
        // The CRLF after a chunk's data.
        if (this.buffer.length < 2) return done;
        this.buffer = this.buffer.subarray(2);
        this.state = "chunkSize";
        continue;
      }
      if (this.state === "chunkSize") {
        const end = this.buffer.indexOf(CRLF);
        if (end < 0) return done;
        const size = Number.parseInt(this.buffer.toString("latin1", 0, end).split(";")[0]!, 16);
        this.buffer = this.buffer.subarray(end + 2);
        if (size === 0) this.state = "trailers";
        else {
          this.remaining = size;
          this.state = "chunkData";
        }
        continue;
      }
      // Trailers: header lines up to an empty line; usually none, so the empty line comes at once.
      const end = this.buffer.indexOf(CRLF);
      if (end < 0) return done;
      this.buffer = this.buffer.subarray(end + 2);
      if (end === 0) finish();
    }
  }
}

/** Closed-loop load on `url` with `connections` keep-alive connections for `seconds`. */
export async function closedLoop(
  url: string,
  { connections, seconds, nextAddress }: { connections: number; seconds: number; nextAddress: () => string },
): Promise<LoadResult> {
  const target = new URL(url);
  if (target.protocol !== "http:") throw new Error(`closedLoop speaks plain HTTP/1.1 only, not ${target.protocol}`);
  const port = Number(target.port || 80);
  const requestHead = `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUser-Agent: signin-site-bench\r\nAccept: */*\r\nCF-Connecting-IP: `;
  const unexpected = new Map<number, number>();
  const latencies: number[] = [];
  let requests = 0;
  let bodyBytes = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const count = (status: number) => {
    if (status !== 200) unexpected.set(status, (unexpected.get(status) ?? 0) + 1);
  };

  const connection = () =>
    new Promise<void>((resolve) => {
      let socket: Socket;
      let framer: ResponseFramer;
      let sentAt = 0;
      let waiting = false;
      const send = () => {
        if (performance.now() >= until) {
          socket.end();
          resolve();
          return;
        }
        sentAt = performance.now();
        waiting = true;
        socket.write(`${requestHead}${nextAddress()}\r\n\r\n`);
      };
      const open = () => {
        framer = new ResponseFramer();
        socket = connect({ host: target.hostname, port, noDelay: true });
        socket.on("connect", send);
        socket.on("data", (chunk: Buffer) => {
          let answers: ReturnType<ResponseFramer["feed"]>;
          try {
            answers = framer.feed(chunk);
          } catch {
            // An answer this framer cannot read: counted once, as a broken connection.
            count(0);
            waiting = false;
            socket.destroy();
            return;
          }
          for (const answer of answers) {
            waiting = false;
            latencies.push(performance.now() - sentAt);
            requests++;
            bodyBytes = answer.bodyBytes;
            count(answer.status);
            if (answer.close) {
              socket.destroy();
              return;
            }
            send();
          }
        });
        // A refused connection, or one that closed under a request, counts as an error (status 0) and is replaced.
        socket.on("error", () => {
          if (!waiting) count(0);
        });
        socket.on("close", () => {
          if (waiting) count(0);
          waiting = false;
          // A new connection while there is time.
          if (performance.now() < until) setImmediate(open);
          else resolve();
        });
      };
      open();
    });

  await Promise.all(Array.from({ length: connections }, connection));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { url, rps: requests / elapsed, requests, seconds: elapsed, unexpected, latencies, bodyBytes };
}
