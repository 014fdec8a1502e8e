import { IslandModal } from "./IslandModal";

// A neutral grey "blocked" sign (public/blocked-tab.svg): a file, not a data: URL, to keep the guard small.
const BLOCKED_FAVICON = "/blocked-tab.svg";

/** Everything on the page but the guard's host stops taking input and focus; open popovers close. */
function disablePage(guardHost: Element): void {
  // Where the Popover API is missing (Safari < 17) so is `:popover-open`, and querySelectorAll would throw.
  if ("hidePopover" in HTMLElement.prototype)
    for (const open of document.querySelectorAll<HTMLElement>(":popover-open")) open.hidePopover();
  // Every sibling of the guard's host and of each of its ancestors, however the page nests it.
  let keep: Element = guardHost;
  while (keep && keep !== document.body && keep.parentElement) {
    for (const sibling of keep.parentElement.children) {
      if (sibling !== keep && sibling instanceof HTMLElement) sibling.inert = true;
    }
    keep = keep.parentElement;
  }
  for (const icon of document.querySelectorAll<HTMLLinkElement>('link[rel~="icon"]')) {
    icon.type = "image/svg+xml";
    icon.href = BLOCKED_FAVICON;
  }
}

/**
 * product §4/§8: the session guard's blocked tab (SessionGuard.tsx), a chunk the guard loads only once another tab has
 * taken over: the content inert, the favicon greyed out and the non-closable "operation interrupted" modal.
 */
export default function SessionBlocked({ modal }: { modal: { title: string; body: string } }) {
  return (
    <IslandModal
      name="session-guard"
      modal={modal}
      // Before the browser paints the modal, so the page is never shown blocked but still usable.
      onOpen={(dialog) => disablePage(dialog.closest("[data-island]") ?? dialog)}
    />
  );
}
