import { useEffect, useState } from "react";
import { reportCrash } from "./crashReport";

/** The product §8 "operation interrupted" modal's words (messages/modals.ts `otherTab`), from the server. */
export interface SessionGuardProps {
  modal: { title: string; body: string };
}

/** The only thing the guard stores: a random marker per tab, never a token or any session data. */
export const TAB_MARKER_KEY = "signin.tabMarker";
const USER_EVENTS = ["pointerdown", "keydown", "input"] as const;
function randomMarker(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Both storages, or null where the browser refuses them (storage disabled: reading the property throws); then there
 * is nothing to guard with. A storage that takes no writes (an old private mode) records nothing, so never blocks.
 */
function storages(): { session: Storage; local: Storage } | null {
  try {
    return { session: window.sessionStorage, local: window.localStorage };
  } catch {
    return null;
  }
}

/**
 * product §4 "the referrer is an identity-site origin": this page was reached from a page of this site. A referrer is
 * empty or a whole URL, so its origin is what precedes the path's first slash (even under `strict-origin`).
 */
function reachedFromThisSite(): boolean {
  return document.referrer.startsWith(`${window.location.origin}/`);
}

/**
 * product §4/§8 session guard. On load and on every user event this tab records a fresh random marker in its
 * sessionStorage and in the shared localStorage. A page reached from this site (the referrer condition) is
 * disabled when the markers differ: another tab recorded one since this tab last did (seen live by a `storage`
 * event, or on load, on a user event and on return from the back/forward cache). Disabled means content inert,
 * the favicon greyed out and the non-closable "operation interrupted" modal, until the other tab is closed and
 * this one reloaded. A page opened from elsewhere (the app, a mail link, a new tab) starts afresh and is never
 * disabled; the tab used last keeps working. Closing or leaving a page gives its marker up.
 */
export function SessionGuard({ modal }: SessionGuardProps) {
  // The blocked tab's modal (SessionBlocked.tsx), loaded once this tab is blocked: most pages never are.
  const [blocked, setBlocked] = useState<typeof import("./SessionBlocked")>();

  useEffect(() => {
    const store = storages();
    if (!store) return undefined;
    const guarded = reachedFromThisSite();
    const own = () => store.session.getItem(TAB_MARKER_KEY);
    const othersSince = () => {
      const shared = store.local.getItem(TAB_MARKER_KEY);
      return shared !== null && shared !== own();
    };
    const listening = new AbortController();
    // A disabled tab records nothing more: its key presses must not take the session back from the other tab.
    const stop = (block: boolean) => {
      listening.abort();
      if (block)
        import("./SessionBlocked").then(setBlocked, (error: unknown) => {
          // Blocked all the same, if without the modal's words (the chunk is gone after a deploy, or offline).
          document.body.inert = true;
          reportCrash("SessionGuard", "load", error);
        });
    };
    const claim = () => {
      if (guarded && othersSince()) return stop(true);
      const marker = randomMarker();
      try {
        store.session.setItem(TAB_MARKER_KEY, marker);
        store.local.setItem(TAB_MARKER_KEY, marker);
      } catch {
        // Quota or a storage turned off meanwhile: this event is simply not recorded.
      }
    };
    const onStorage = (event: StorageEvent) => {
      if (event.key !== TAB_MARKER_KEY || event.storageArea !== store.local || event.newValue === null) return;
      if (guarded && event.newValue !== own()) stop(true);
    };
    // Back/forward cache: storage events are not delivered to a frozen page, so it compares on its return.
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) claim();
    };
    // The shared marker is given up when the page goes, so a tab left alone can be reloaded and used again.
    const onPageHide = () => {
      if (store.local.getItem(TAB_MARKER_KEY) === own()) store.local.removeItem(TAB_MARKER_KEY);
    };
    claim();
    for (const type of USER_EVENTS)
      window.addEventListener(type, claim, { capture: true, passive: true, signal: listening.signal });
    window.addEventListener("storage", onStorage, { signal: listening.signal });
    window.addEventListener("pageshow", onPageShow, { signal: listening.signal });
    window.addEventListener("pagehide", onPageHide, { signal: listening.signal });
    return () => stop(false);
  }, []);

  return blocked ? <blocked.default modal={modal} /> : null;
}
