// @vitest-environment jsdom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import SessionBlocked from "../../islands/SessionBlocked";
import SmsSendButton from "../../islands/SmsSendButton";

// The islands in an engine without the Popover API (Safari < 17, WPE 2.38; docs/browsers.md), which jsdom
// is too: no showPopover, and there `:popover-open` is an unknown selector that querySelectorAll throws on.

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | undefined;

afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

function mount(host: Element, island: React.ReactNode): void {
  root = createRoot(host);
  act(() => root?.render(island));
}

describe("the SMS send button (islands/SmsSendButton.tsx)", () => {
  /** The SMS setup form with its warning (pages/MfaSetupSms.tsx); answers whether a send was stopped. */
  function smsForm(): () => boolean {
    document.body.innerHTML = `<form id="phone" method="post" action="/warning"><input name="phoneNumber" value="09012345678"><div id="host"></div></form>
      <dialog id="warning" popover="auto"><button type="submit" form="phone" formaction="/send">send</button></dialog>`;
    mount(document.getElementById("host")!, <SmsSendButton label="send code" warning="warning" />);
    let stopped: boolean | undefined;
    // After the island's own listener on the form: what it did, then no navigation (jsdom has none).
    document.addEventListener("submit", (event) => {
      stopped = event.defaultPrevented;
      event.preventDefault();
    });
    return () => {
      stopped = undefined;
      act(() => document.querySelector<HTMLButtonElement>("#host button")!.click());
      if (stopped === undefined) throw new Error("the form was not submitted");
      return stopped;
    };
  }

  it("lets the form post to the warning page where the engine has no popover, as without script", () => {
    expect("showPopover" in HTMLElement.prototype).toBe(false);
    const send = smsForm();
    expect(send()).toBe(false);
  });

  it("opens the warning instead where it has", () => {
    const showPopover = vi.fn();
    Object.defineProperty(HTMLElement.prototype, "showPopover", { value: showPopover, configurable: true });
    try {
      const send = smsForm();
      expect(send()).toBe(true);
      expect(showPopover).toHaveBeenCalledOnce();
    } finally {
      delete (HTMLElement.prototype as Partial<HTMLElement>).showPopover;
    }
  });
});

describe("the session guard's blocked tab (islands/SessionBlocked.tsx)", () => {
  it("disables the page without asking for :popover-open where the engine does not know it", () => {
    const querySelectorAll = Document.prototype.querySelectorAll;
    vi.spyOn(Document.prototype, "querySelectorAll").mockImplementation(function (this: Document, selectors: string) {
      if (selectors.includes(":popover-open")) throw new SyntaxError(`'${selectors}' is not a valid selector`);
      return querySelectorAll.call(this, selectors);
    });
    document.body.innerHTML = `<main id="page"><a href="#">link</a></main><div data-island="SessionGuard" id="guard"></div>`;
    mount(document.getElementById("guard")!, <SessionBlocked modal={{ title: "blocked", body: "another tab" }} />);
    expect(document.querySelector("[data-session-guard]")).not.toBeNull();
    expect(document.getElementById("page")?.inert).toBe(true);
  });
});
