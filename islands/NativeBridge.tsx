import { type MouseEvent as ReactMouseEvent, useEffect, useRef, useState } from "react";
import type { AppRelease } from "../themes/schema";
import { IslandModal } from "./IslandModal";
import {
  type NativeBridge as Bridge,
  isOlderVersion,
  linkMessage,
  nativeBridge,
  UPDATE_PROMPTED_AT_KEY,
  updatePromptDue,
  WEBAUTHN_OFF_COOKIE,
} from "./nativeBridgeProtocol";

/** The brand's app release rule (brand data), or null for a brand without one: then no version check. */
export interface NativeBridgeProps {
  app: AppRelease | null;
  /** The update prompt's words (messages/modals.ts `appUpdate`, and `common.later`), from the server. */
  prompt: { title: string; body: string; actionLabel: string; later: string };
}

/** Whether the update prompt may show now (product §9: once in 24 hours); false where storage is refused (no nagging). */
function updatePromptMayShow(): boolean {
  try {
    return updatePromptDue(window.localStorage.getItem(UPDATE_PROMPTED_AT_KEY), Date.now());
  } catch {
    return false;
  }
}

function recordUpdatePrompt(): void {
  try {
    window.localStorage.setItem(UPDATE_PROMPTED_AT_KEY, String(Date.now()));
  } catch {
    // Storage refused meanwhile: the prompt may show again on the next page, which is all that is lost.
  }
}

/**
 * product §1 inside the app's webview (docs/native-bridge.md): external links open in the system browser and mail
 * links in the mail composer, by a message to the app instead of a navigation the webview cannot do; and the
 * version check: an app older than the brand's recommended version is asked to update, at most once in 24 hours
 * (product §9), its store opened through the app. The worker renders it only for the app's User-Agent; with no
 * `ReactNativeWebView` it does nothing.
 */
export default function NativeBridge({ app, prompt }: NativeBridgeProps) {
  const [storeUrl, setStoreUrl] = useState<string | null>(null);
  const bridgeRef = useRef<Bridge | null>(null);

  useEffect(() => {
    const bridge = nativeBridge(window);
    bridgeRef.current = bridge;
    if (!bridge) return undefined;
    const onClick = (event: MouseEvent) => {
      if (
        event.defaultPrevented ||
        event.button !== 0 ||
        event.metaKey ||
        event.ctrlKey ||
        event.shiftKey ||
        event.altKey
      )
        return;
      const anchor = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>("a[href]") : null;
      if (!anchor) return;
      const message = linkMessage(anchor.href, anchor.target, window.location.origin);
      if (!message) return;
      event.preventDefault();
      bridge.post(message);
    };
    // Bubble phase on the document: any handler of the page itself runs first and may take the click.
    document.addEventListener("click", onClick);
    // Marks that links now go through the app (the browser tests wait for it; nothing else reads it).
    document.documentElement.dataset.nativeBridge = "on";

    let current = true;
    // docs/passkeys.md: where the app says its webview cannot use passkeys, this browser is offered none. An app that
    // does not know the question (no answer) leaves it to the browser's own check.
    bridge
      .call<"getWebAuthnSupport">({ type: "getWebAuthnSupport" })
      .then(({ supported }) => {
        document.documentElement.dataset.webauthn = supported ? "on" : "off";
        // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from the older engines served.
        document.cookie = `__Host-${WEBAUTHN_OFF_COOKIE}=off; Path=/; Secure; SameSite=Strict; Max-Age=${supported ? 0 : 86400}`;
      })
      .catch(() => undefined);
    if (app && updatePromptMayShow()) {
      bridge
        .call<"getNativeAppVersion">({ type: "getNativeAppVersion" })
        .then(({ version, platform }) => {
          if (!current || !isOlderVersion(version, app.recommendedVersion)) return;
          recordUpdatePrompt();
          setStoreUrl(app.storeUrls[platform]);
        })
        // No answer or a refusal: no prompt on this page; the next page asks again.
        .catch(() => undefined);
    }
    return () => {
      current = false;
      document.removeEventListener("click", onClick);
      delete document.documentElement.dataset.nativeBridge;
    };
  }, [app]);

  if (!storeUrl) return null;
  const close = () => setStoreUrl(null);
  const update = (event: ReactMouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    bridgeRef.current?.post({ type: "openExternalBrowser", url: storeUrl });
    close();
  };
  return (
    <IslandModal name="app-update" modal={prompt} onClose={close}>
      <div className="modal-actions">
        <a className="button" href={storeUrl} onClick={update}>
          {prompt.actionLabel}
        </a>
        <button type="button" className="button button--secondary" onClick={close}>
          {prompt.later}
        </button>
      </div>
    </IslandModal>
  );
}
