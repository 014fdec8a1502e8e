import manifest from "virtual:islands-manifest";
import { getCookie } from "hono/cookie";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ReactElement } from "react";
import { renderToReadableStream } from "react-dom/server";
import type { IslandName } from "../islands/names";
import { nativeAppVersion } from "../islands/nativeBridgeProtocol";
import { SCRIPT_MARKER_COOKIE } from "../islands/scriptMarker";
import { type ModalKey, type ModalRecord, modals } from "../messages/modals";
import { ErrorPage } from "../pages/ErrorPage";
import { Document } from "../pages/layout/Document";
import type { ActiveModal, DeployEnvironment, FormState } from "../pages/layout/PageContext";
import { defaultBrand, earlierServiceName } from "../themes/brands";
import type { AppContext } from "./context";
import { logEvent } from "./log";

const ENVIRONMENTS: readonly DeployEnvironment[] = ["dev", "stg", "prod"];

export function deployEnvironment(env: Env): DeployEnvironment {
  return ENVIRONMENTS.find((name) => name === env.APP_ENV) ?? "prod";
}

/** What a response shows on top of its screen: a modal of the catalogue, a rejected form, a status (an upstream call's result is a `CallResult`). */
export interface Outcome {
  modal?: ModalKey | ActiveModal | undefined;
  form?: FormState | undefined;
  /** Defaults to the modal's status, else 422 for a rejected form, else 200. */
  status?: ContentfulStatusCode | undefined;
}

function statusOf({ modal, form, status }: Outcome): ContentfulStatusCode {
  if (status) return status;
  if (modal) return modals[typeof modal === "string" ? modal : modal.key].status;
  return form && Object.keys(form.errors).length ? 422 : 200;
}

/**
 * Streams a screen (with the default brand when a request failed before its brand was resolved) as
 * server-rendered React, with the outcome's modal and form state in the page context. Status, headers and
 * cookies are all set on the context before this is called: the shell is ready before the first byte leaves.
 */
export async function renderPage(c: AppContext, page: ReactElement, outcome: Outcome = {}): Promise<Response> {
  const islands = new Set<IslandName>();
  const nonce = c.get("nonce");
  const brand = c.get("brand") ?? defaultBrand;
  const modal = typeof outcome.modal === "string" ? { key: outcome.modal } : outcome.modal;
  const log = c.get("log");
  if (log && modal) log.outcome = modal.key;
  else if (log && outcome.form && Object.keys(outcome.form.errors).length) log.outcome = "form_errors";
  const stream = await renderToReadableStream(
    <Document
      page={{
        brand,
        environment: deployEnvironment(c.env),
        mailSenderDomain: c.env.MAIL_SENDER_DOMAIN,
        earlierServiceName: earlierServiceName(brand),
        // The app's webview marks its User-Agent (docs/native-bridge.md); only then does the bridge script ship.
        nativeApp: nativeAppVersion(c.req.header("User-Agent")) !== null,
        modal,
        form: outcome.form,
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
  // The modal says when to try again (maintenance, too many attempts): so does the response.
  const retryAfter = modal ? (modals[modal.key] as ModalRecord).retryAfterSeconds : undefined;
  if (retryAfter !== undefined) c.header("Retry-After", String(retryAfter));
  return c.body(stream, statusOf(outcome));
}

/**
 * The browser ran the island script on an earlier page (its marker cookie, islands/scriptMarker.ts): a page may
 * stream a late part behind a Suspense fallback to it. React writes the fallback and the hidden late part whatever
 * the response waits for, and only a script swaps them, so for every other browser a route awaits its data first.
 */
export function runsScript(c: AppContext): boolean {
  return getCookie(c, SCRIPT_MARKER_COOKIE, "host") === "1";
}

/** product §2/§8: a missing or malformed parameter or journey state: the parameter-problem modal, then back. */
export function parameterProblem(c: AppContext, modal: "parameterError" | "callbackParameterError" = "parameterError") {
  return errorPage(c, { modal });
}

/** The error page with an outcome's modal: where a request failed before, or without, a screen of its own. */
export function errorPage(c: AppContext, outcome: Outcome): Promise<Response> {
  return renderPage(c, <ErrorPage />, outcome);
}

/** Renders the current screen again with an outcome; what a route handler answers with when it does not redirect. */
export type Show = (outcome: Outcome) => Promise<Response>;
