import type { IncomingMessage } from "node:http";
import basicSsl from "@vitejs/plugin-basic-ssl";
import type { Connect, Plugin } from "vite";

// `npm run dev:https` (README): the site and the emulator over HTTPS on localhost, with a certificate
// generated on this machine (@vitejs/plugin-basic-ssl, kept under node_modules/.vite), because WebKit drops every
// Secure cookie, the site's __Host- cookies included, on http://localhost.

/**
 * Vite's HTTPS server speaks HTTP/2, whose requests carry `:authority` and no `Host`; the Cloudflare plugin builds the
 * worker's request URL from the raw `Host` header, so without this the URL lost its port (`https://localhost/…` for
 * `https://localhost:8443/…`), and so did every absolute URL the site and the emulator build with it.
 */
export function hostFromAuthority(req: IncomingMessage): void {
  const authority = req.headers[":authority"];
  if (req.headers.host !== undefined || typeof authority !== "string") return;
  // The plugin reads the raw header list, which an HTTP/2 request builds anew on each read.
  Object.defineProperty(req, "rawHeaders", { value: [...req.rawHeaders, "host", authority] });
  req.headers.host = authority;
}

const keepPort: Connect.NextHandleFunction = (req, _res, next) => {
  hostFromAuthority(req);
  next();
};

/** HTTPS with a local certificate, for `vite dev` and `vite preview`, keeping the port of every request's URL. */
export function localHttps(): Plugin[] {
  return [
    basicSsl({ name: "signin-site-local" }),
    {
      name: "signin-site:http2-host",
      configureServer: (server) => void server.middlewares.use(keepPort),
      configurePreviewServer: (server) => void server.middlewares.use(keepPort),
    },
  ];
}
