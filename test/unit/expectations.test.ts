import { describe, expect, it } from "vitest";
import { modals, modalText } from "../../messages/modals";
import { escapeHtml, expectModalIn, expectNoSecrets, expectRedirect } from "../support/expectations";

// The shared checks must fail where a page is wrong: each is tried here on a page that passes and on pages that
// must not, so that a helper loosened by mistake (a skipped secret, any modal for any key) fails this file.

const page = (dialog: string) => `<!DOCTYPE html><html><body><main>…</main>${dialog}</body></html>`;
const dialogOf = (title: string, body: string) =>
  `<dialog open="" class="modal" id="message-modal"><h2>${escapeHtml(title)}</h2><p>${escapeHtml(body)}</p></dialog>`;

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
