import { describe, expect, it } from "vitest";
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

describe("islands pipeline (ARCHITECTURE §5)", () => {
  it("ships no script at all on a page without islands", async () => {
    const html = await (await get("/no/such/page")).text();
    expect(html).not.toContain("<script");
    expect(html).not.toContain("modulepreload");
    expect(html).not.toContain("data-island");
  });

  it("ships one module script on a page with islands, and hosts carrying their props", async () => {
    const cookie = await sealedCookie("signUp", { loginChallenge: "challenge", email: "new@example.com" });
    const html = await (await get("/signUp/inputPassword", [cookie])).text();
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).toMatch(/<script type="module" src="[^"]+" nonce="[^"]+" async=""><\/script>/);
    const hosts = islandHosts(html);
    expect(hosts.map((h) => h.name)).toEqual(["TextField", "PasswordField", "SubmitButton", "SessionGuard"]);
    // Islands get data (a field preset, the brand's rules); their words come from messages/ja.ts.
    expect(hosts[1]?.props).toEqual({ field: "signUpPassword", passwordRules: "standard" });
    expect(hosts[0]?.props).toEqual({ field: "email", value: "new@example.com", readOnly: true });
    expect(html).toContain("8文字以上256文字未満");
  });

  it("escapes island props and field values: markup in a value never becomes markup", async () => {
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const cookie = await sealedCookie("signUp", { loginChallenge: "challenge", email: evil });
    const html = await (await get("/signUp/inputPassword", [cookie])).text();
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(islandHosts(html)[0]?.props).toMatchObject({ value: evil });
  });
});
