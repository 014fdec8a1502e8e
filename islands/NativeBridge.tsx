import { useEffect } from "react";
import { island } from "./host";
import { linkMessage, nativeBridge } from "./nativeBridgeProtocol";

/** The bridge needs no data from the server: it only reads the links the page already has. */
export type NativeBridgeProps = Record<string, never>;

/**
 * SPEC §1 inside the app's webview (docs/native-bridge.md): external links open in the system browser and
 * mail links in the mail composer, by a message to the app instead of a navigation the webview cannot do.
 * The worker renders it only for the app's User-Agent; with no `ReactNativeWebView` it does nothing.
 */
function NativeBridge(_props: NativeBridgeProps) {
  useEffect(() => {
    const bridge = nativeBridge(window);
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
    return () => {
      document.removeEventListener("click", onClick);
      delete document.documentElement.dataset.nativeBridge;
    };
  }, []);
  return null;
}

export default island("NativeBridge", NativeBridge);
