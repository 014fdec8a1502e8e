import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PageContext } from "../../pages/layout/PageContext";
import { canDelete, type PasskeyRow, Passkeys } from "../../pages/Passkeys";
import { defaultBrand } from "../../themes/brands";

// docs/passkeys.md "Managing passkeys": on a brand whose `passkeys` is "required" the last passkey cannot be deleted
// (the route refuses it with the same rule, worker/routes/passkeys.tsx; no brand's data is "required" yet, so the
// rule and the page are checked here).

const row = (id: string): PasskeyRow => ({ id, name: id, created: "2026年11月25日", lastUsed: null, suspended: false });

function page(passkeys: PasskeyRow[], keepLast: boolean): string {
  return renderToString(
    <PageContext.Provider
      value={{ brand: defaultBrand, environment: "prod", mailSenderDomain: "mail.example", earlierServiceName: "x" }}
    >
      <Passkeys passkeys={passkeys} stage="start" keepLast={keepLast} />
    </PageContext.Provider>,
  );
}

describe("deleting the last passkey", () => {
  it("is refused on a required brand only, and only for the last one", () => {
    expect(canDelete(true, 1)).toBe(false);
    expect(canDelete(true, 0)).toBe(false);
    expect(canDelete(true, 2)).toBe(true);
    expect(canDelete(false, 1)).toBe(true);
  });

  it("shows no delete button for the last passkey of a required brand, and says why", () => {
    const last = page([row("AAAA")], true);
    expect(last).not.toContain('action="/passkeys/delete"');
    expect(last).toContain("最後の1つは削除できません");
    expect(page([row("AAAA"), row("BBBB")], true).match(/action="\/passkeys\/delete"/g)).toHaveLength(2);
    expect(page([row("AAAA")], false)).toContain('action="/passkeys/delete"');
  });
});
