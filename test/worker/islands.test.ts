import { describe, expect, it } from "vitest";
import { fieldPresets } from "../../forms/fields";
import { brandPasswordWords, chosenPasswordMessageKeys } from "../../forms/passwordContext";
import { ruleMessageKeys } from "../../forms/rules";
import { buttonLabels, common, fieldMessages, passwordChecklistLabels, screens } from "../../messages/ja";
import { modals } from "../../messages/modals";
import { defaultBrand } from "../../themes/brands";
import { escapeHtml } from "../support/expectations";
import { get, sealedCookie } from "./helpers";

function islandHosts(html: string): Array<{ name: string; props: unknown }> {
  return [...html.matchAll(/<div data-island="([A-Za-z]+)" data-props="([^"]*)"/g)].map(([, name, props]) => ({
    name: name!,
    props: JSON.parse(
      props!
        .replace(/&quot;/g, '"')
        .replace(/&#x27;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
    ),
  }));
}

describe("islands pipeline (architecture §5)", () => {
  // A page without islands, answered as a user meets it: its status and its words, and not a single script.
  it.each([
    ["/no/such/page", 404, screens.notFound],
    ["/error", 200, screens.error],
  ])("ships no script at all on a page without islands (%s)", async (path, status, words) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(escapeHtml(words.title));
    expect(html).toContain(escapeHtml(words.body));
    expect(html).not.toContain("<script");
    expect(html).not.toContain("modulepreload");
    expect(html).not.toContain("data-island");
  });

  it("ships one module script on a page with islands, and hosts carrying their props", async () => {
    const cookie = await sealedCookie("signUp", { loginChallenge: "challenge", email: "new@example.com" });
    const response = await get("/signUp/inputPassword", [cookie]);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).toMatch(/<script type="module" src="[^"]+" nonce="[^"]+" async=""><\/script>/);
    const hosts = islandHosts(html);
    // The e-mail is text, not a field (pages/SignUpInputPassword.tsx): no island of its own.
    expect(hosts.map((h) => h.name)).toEqual(["PasswordField", "SubmitButton", "SessionGuard"]);
    // Islands get their data and their words from the server (no message module ships to the browser):
    // a field its preset, the brand's rules and the messages its rule can answer. Where a password is chosen, also
    // whom it is for and the brand's names, and the messages of those and of a leaked one.
    const chosenKeys = [...ruleMessageKeys.password, ...chosenPasswordMessageKeys];
    expect(hosts[0]?.props).toEqual({
      preset: { ...fieldPresets.signUpPassword },
      messages: Object.fromEntries(chosenKeys.map((key) => [key, fieldMessages[key]])),
      passwordRules: "standard",
      words: expect.objectContaining({ show: common.showPassword, hide: common.hidePassword }),
      context: { identities: ["new@example.com"], brandWords: brandPasswordWords(defaultBrand) },
    });
    const passwordProps = hosts[0]?.props as { words?: { checklist?: Record<string, string> } } | undefined;
    expect(passwordProps?.words?.checklist).toMatchObject({
      title: common.passwordChecklistTitle,
      ...passwordChecklistLabels,
    });
    expect(hosts[1]?.props).toEqual({ label: buttonLabels.register });
    expect(hosts[2]?.props).toEqual({ modal: { title: modals.otherTab.title, body: modals.otherTab.body } });
    expect(html).toContain("8文字以上256文字未満");
  });

  it("escapes island props and field values: markup in a value never becomes markup", async () => {
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const cookie = await sealedCookie("signUp", { loginChallenge: "challenge", email: evil });
    const response = await get("/signUp/inputPassword", [cookie]);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(islandHosts(html)[0]?.props).toMatchObject({ context: { identities: [evil] } });
  });
});
