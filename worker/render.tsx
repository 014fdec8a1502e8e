import manifest from "virtual:islands-manifest";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ReactElement } from "react";
import { renderToReadableStream } from "react-dom/server";
import type { IslandName } from "../islands/names";
import { nativeAppVersion } from "../islands/nativeBridgeProtocol";
import { Document } from "../pages/layout/Document";
import type { DeployEnvironment } from "../pages/layout/PageContext";
import { defaultBrand } from "../themes/brands";
import type { AppContext } from "./context";
import { logEvent } from "./log";

const ENVIRONMENTS: readonly DeployEnvironment[] = ["dev", "stg", "prod"];

export function deployEnvironment(env: Env): DeployEnvironment {
  return ENVIRONMENTS.find((name) => name === env.APP_ENV) ?? "prod";
}

/**
 * Streams a screen (with the default brand when a request failed before its tenant was resolved) as server-rendered React. Status, headers and cookies are all set on the context
 * before this is called: the shell is ready before the first byte leaves, and nothing is set after.
 */
export async function renderPage(
  c: AppContext,
  page: ReactElement,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const islands = new Set<IslandName>();
  const nonce = c.get("nonce");
  const stream = await renderToReadableStream(
    <Document
      page={{
        brand: c.get("brand") ?? defaultBrand,
        environment: deployEnvironment(c.env),
        mailSenderDomain: c.env.MAIL_SENDER_DOMAIN,
        // The app's webview marks its User-Agent (docs/native-bridge.md); only then does the bridge script ship.
        nativeApp: nativeAppVersion(c.req.header("User-Agent")) !== null,
      }}
      nonce={nonce}
      manifest={manifest}
      islands={islands}
    >
      {page}
    </Document>,
    {
      nonce,
      onError(error) {
        logEvent("error", "render_failed", {
          requestId: c.get("requestId"),
          message: error instanceof Error ? error.message : String(error),
        });
      },
    },
  );
  c.header("Content-Type", "text/html; charset=utf-8");
  return c.body(stream, status);
}
