import { expect } from "vitest";
import { type ModalKey, type ModalTextContext, modals, modalText } from "../../messages/modals";

// The checks every layer makes of a page the site answered: one definition each, for the workerd and the browser tests.

/** Text as React writes it into an HTML text node or attribute. */
export const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/**
 * None of `secrets` (passwords, tokens, codes, verifiers) is in `html`. A missing secret fails: a check against
 * `undefined` would pass whatever the page holds.
 */
export function expectNoSecrets(html: string, secrets: ReadonlyArray<string | null | undefined>): void {
  expect(secrets.length, "no secrets given").toBeGreaterThan(0);
  for (const [index, secret] of secrets.entries()) {
    expect(secret, `secret ${index} is missing: the check would prove nothing`).toBeTruthy();
    expect(html.includes(secret as string), `secret ${index} reached the page`).toBe(false);
  }
}

/** A form's answer: 303 to exactly `location` (a path on the site, or an allow-listed URL). */
export function expectRedirect(response: Response, location: string): void {
  expect(response.status).toBe(303);
  expect(response.headers.get("Location")).toBe(location);
}

/** The server-opened modal's markup (the dialog open at load), or fails when the page opened none. */
export function openModal(html: string): string {
  const found = /<dialog open=""[^>]*id="message-modal"[\s\S]*?<\/dialog>/.exec(html)?.[0];
  expect(found, "no modal opened").toBeDefined();
  return found ?? "";
}

/**
 * `html` opened the modal `key` (product §2/§8) with its title and body; answers the modal's markup. A text made from the
 * brand's names is checked when `context` gives the names, else by the test that knows them.
 */
export function expectModalIn(html: string, key: ModalKey, context?: ModalTextContext): string {
  const dialog = openModal(html);
  const { title, body } = context ? modalText(key, context) : (modals[key] as { title: unknown; body: unknown });
  for (const text of [title, body]) if (typeof text === "string") expect(dialog).toContain(escapeHtml(text));
  expectModalAnnounced(html, dialog, modals[key].status >= 400);
  return dialog;
}

/**
 * What a screen reader needs of a modal the server opened (docs/accessibility.md): the focus inside it as the page
 * loads (the one `autofocus` of the page, on its heading), its body as its description, an error as an
 * `alertdialog`, no claim to be modal before script makes it so, and the island that does.
 */
function expectModalAnnounced(html: string, dialog: string, error: boolean): void {
  const opening = /^<dialog[^>]*>/.exec(dialog)?.[0] ?? "";
  expect(opening, "aria-modal on a dialog that is open, not modal").not.toContain("aria-modal");
  expect(opening.includes('role="alertdialog"'), "an error is an alertdialog, a result is not").toBe(error);
  expect(html.match(/ autofocus=""/g), "one element of the page takes the focus").toHaveLength(1);
  expect(dialog, "the focus starts on the modal's heading").toMatch(
    /<h2 [^>]*autofocus=""[^>]*>|^<dialog [^>]*autofocus/,
  );
  const described = / aria-describedby="([^"]+)"/.exec(opening)?.[1];
  if (dialog.includes('class="modal-body"')) expect(dialog).toContain(`id="${described}"`);
  expect(html, "the island that makes it modal").toContain('data-island="ServerModal"');
  expect(/<title>エラー：/.test(html), "an error's page title starts with エラー：, a result's does not").toBe(error);
}

/** The response answered `status` and opened the modal `key` (`context`: as in `expectModalIn`); answers the page. */
export async function expectModal(
  response: Response,
  status: number,
  key: ModalKey,
  context?: ModalTextContext,
): Promise<string> {
  expect(response.status).toBe(status);
  const html = await response.text();
  expectModalIn(html, key, context);
  return html;
}
