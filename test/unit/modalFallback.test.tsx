// @vitest-environment jsdom
import { readFileSync } from "node:fs";
import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PageContext } from "../../pages/layout/PageContext";
import { MfaSetupSms } from "../../pages/MfaSetupSms";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import { SignIn } from "../../pages/SignIn";
import { SignInMfa } from "../../pages/SignInMfa";
import { SignUpCheckEmail } from "../../pages/SignUpCheckEmail";
import { SignUpInputPassword } from "../../pages/SignUpInputPassword";
import { brandById } from "../../themes/brands";

// The script-free modals opened by a control are popovers; an engine without the Popover API (Safari < 17,
// docs/browsers.md) gets a link beside every popover button instead, which opens the modal as the URL's :target
// (pages/layout/Modal.tsx, the `@supports not selector(:popover-open)` branch of site.css). Every page with such
// a modal, as the server renders it.

const brand = brandById("gungnir-aurora")!;

function rendered(page: ReactNode): Document {
  const html = renderToString(
    <PageContext.Provider
      value={{ brand, environment: "prod", mailSenderDomain: "mail.example", earlierServiceName: "x" }}
    >
      {page}
    </PageContext.Provider>,
  );
  return new DOMParser().parseFromString(`<!doctype html><body>${html}</body>`, "text/html");
}

const pages: Array<[string, ReactNode, string[]]> = [
  ["SignIn", <SignIn key="signIn" clientId="c" />, ["whatIsId-modal", "support-modal"]],
  ["SignUpCheckEmail", <SignUpCheckEmail key="checkEmail" />, ["whatIsId-modal", "support-modal"]],
  ["SignUpInputPassword", <SignUpInputPassword key="inputPassword" />, ["signUpBackWarning-modal", "support-modal"]],
  ["ResetPasswordSendMail", <ResetPasswordSendMail key="sendMail" />, ["mailHelp-modal", "support-modal"]],
  ["SignInMfa (SMS)", <SignInMfa key="mfa" type="SMS" />, ["smsHelp-modal", "support-modal"]],
  ["MfaSetupSms", <MfaSetupSms key="smsSetup" />, ["support-modal"]],
];

describe.each(pages)("%s", (_name, page, opened) => {
  const document = rendered(page);

  it("has a fallback link beside each popover button: same words and look, to the modal", () => {
    const openers = [...document.querySelectorAll('button[popovertargetaction="show"]')];
    expect(openers.map((button) => button.getAttribute("popovertarget"))).toEqual(opened);
    for (const button of openers) {
      const target = button.getAttribute("popovertarget")!;
      expect(document.getElementById(target)?.matches("dialog.modal[popover]")).toBe(true);
      const link = button.nextElementSibling;
      expect(link?.outerHTML).toBe(
        `<a id="${target}-opener" class="${button.className} modal-fallback" href="#${target}">${button.innerHTML}</a>`,
      );
      expect(document.querySelectorAll(`a[href="#${target}"]`)).toHaveLength(1);
    }
  });

  it("has a fallback link beside each close button, back to the modal's opener", () => {
    const closers = [...document.querySelectorAll('button[popovertargetaction="hide"]')];
    expect(closers.length).toBeGreaterThan(0);
    for (const button of closers) {
      const target = button.getAttribute("popovertarget")!;
      expect(button.closest("dialog")?.id).toBe(target);
      expect(button.nextElementSibling?.outerHTML).toBe(
        `<a class="${button.className} modal-fallback" href="#${target}-opener">${button.innerHTML}</a>`,
      );
    }
  });

  it("gives no two elements one id (a close link goes back to its opener by id)", () => {
    const ids = [...document.querySelectorAll("[id]")].map((element) => element.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });
});

describe("site.css", () => {
  const css = readFileSync("pages/layout/site.css", "utf8");

  it("hides the fallback links unless the engine lacks :popover-open, and then hides the popover buttons instead", () => {
    expect(css).toMatch(/^\.modal-fallback\{display:none\}$/m);
    const fallback = /^@supports not selector\(:popover-open\)\{(.*)\}$/m.exec(css)?.[1] ?? "";
    expect(fallback).toContain("[popovertarget]{display:none}");
    expect(fallback).toMatch(/\.link-button\.modal-fallback\{display:inline-block\}/);
    expect(fallback).toMatch(/\.button\.modal-fallback\{display:block\}/);
    // The linked modal shows as the URL's target, fixed over the page; the server-opened one (z-index 20) above it.
    expect(fallback).toMatch(/dialog\.modal:target\{display:block;position:fixed;[^}]*z-index:15;/);
  });
});
