import { describe, expect, it } from "vitest";
import { type ModalKey, modals, modalText } from "../../messages/modals";
import { escapeHtml, expectModalIn, expectNoSecrets, expectRedirect } from "../support/expectations";

// The shared checks must fail where a page is wrong: each is tried here on a page that passes and on pages that
// must not, so that a helper loosened by mistake (a skipped secret, any modal for any key) fails this file.

const page = (dialog: string) =>
  `<!DOCTYPE html><html><head><title>${dialog.includes("alertdialog") ? "エラー：" : ""}認証-AURORA</title></head>` +
  `<body><main>…</main>${dialog}</body></html>`;
/** A server-opened modal as pages/layout/Modal.tsx writes it: an error is an alertdialog. */
const dialogOf = (title: string, body: string, { error = true } = {}) =>
  `<div class="modal-overlay"><dialog open="" id="message-modal" class="modal"${error ? ' role="alertdialog"' : ""}` +
  ` aria-labelledby="message-modal-title"${body ? ' aria-describedby="message-modal-body"' : ""}>` +
  `<h2 id="message-modal-title" class="modal-title" autofocus="" tabindex="-1">${escapeHtml(title)}</h2>` +
  `<div class="modal-content">${body ? `<p id="message-modal-body" class="modal-body">${escapeHtml(body)}</p>` : ""}` +
  `</div></dialog><div data-island="ServerModal" data-props="{}" class="island"></div></div>`;

describe("expectNoSecrets", () => {
  it("passes a page without the secrets", () => {
    expectNoSecrets(page(""), ["Passw0rd!", "challenge-1"]);
  });

  it("fails a page that holds one", () => {
    expect(() => expectNoSecrets(page("challenge-1"), ["Passw0rd!", "challenge-1"])).toThrow(
      "secret 1 reached the page",
    );
  });

  it("fails on a missing secret and on no secrets at all: such a check would prove nothing", () => {
    expect(() => expectNoSecrets(page(""), ["Passw0rd!", undefined])).toThrow("secret 1 is missing");
    expect(() => expectNoSecrets(page(""), [null])).toThrow("secret 0 is missing");
    expect(() => expectNoSecrets(page(""), [""])).toThrow("secret 0 is missing");
    expect(() => expectNoSecrets(page(""), [])).toThrow("no secrets given");
  });
});

describe("expectModalIn", () => {
  const retry = modals.retry as { title: string; body: string };

  it("passes the modal opened with its title and body", () => {
    expect(expectModalIn(page(dialogOf(retry.title, retry.body)), "retry")).toContain('id="message-modal"');
  });

  it("fails a page with no modal open, or another modal", () => {
    expect(() => expectModalIn(page(""), "retry")).toThrow("no modal opened");
    const closed = dialogOf(retry.title, retry.body).replace('<dialog open=""', "<dialog");
    expect(() => expectModalIn(page(closed), "retry")).toThrow("no modal opened");
    const other = modals.parameterError as { title: string; body: string };
    expect(() => expectModalIn(page(dialogOf(other.title, other.body)), "retry")).toThrow();
  });

  it("fails a modal a screen reader would not meet first, or that says it is what it is not", () => {
    const good = dialogOf(retry.title, retry.body);
    const result = modals.passwordChanged as { title: string; body: string };
    const resultDialog = dialogOf(result.title, result.body, { error: false });
    const broken: Array<[string, ModalKey, string]> = [
      [page(good.replace('role="alertdialog"', 'role="alertdialog" aria-modal="true"')), "retry", "aria-modal"],
      [page(good.replace(' autofocus=""', "")), "retry", "one element of the page takes the focus"],
      [page(`${good}<input autofocus="">`), "retry", "one element of the page takes the focus"],
      [page(good.replace(' role="alertdialog"', "")), "retry", "an error is an alertdialog"],
      [page(dialogOf(result.title, result.body)), "passwordChanged", "an error is an alertdialog"],
      [page(good.replace('"ServerModal"', '"BackButton"')), "retry", "the island that makes it modal"],
      [page(good).replace("<title>エラー：", "<title>"), "retry", "an error's page title"],
      [page(resultDialog).replace("<title>", "<title>エラー："), "passwordChanged", "an error's page title"],
    ];
    for (const [html, key, message] of broken) expect(() => expectModalIn(html, key), message).toThrow(message);
    expectModalIn(page(resultDialog), "passwordChanged");
  });

  it("checks a text made from the brand's names when it is given them", () => {
    const context = { providerName: "カザハナ証券", earlierServiceName: "レモンネット証券", senderDomain: "" };
    const notice = modalText("requirePasswordInit", context);
    expectModalIn(page(dialogOf(notice.title, notice.body)), "requirePasswordInit", context);
    expect(() => expectModalIn(page(dialogOf(notice.title, "")), "requirePasswordInit", context)).toThrow();
  });
});

describe("expectRedirect", () => {
  it("passes a 303 to exactly the place, fails any other status or place", () => {
    const to = (status: number, location: string) => new Response(null, { status, headers: { Location: location } });
    expectRedirect(to(303, "/signIn"), "/signIn");
    expect(() => expectRedirect(to(302, "/signIn"), "/signIn")).toThrow();
    expect(() => expectRedirect(to(303, "/signIn?x=1"), "/signIn")).toThrow();
  });
});
