import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Card } from "../../pages/layout/Card";
import { PageContext } from "../../pages/layout/PageContext";
import { buildBrandData } from "../../themes/build";
import { defaultBrand, rawBrands } from "../../themes/data/brands";
import { clients } from "../../themes/data/clients";

// A brand whose support messages carry XSS payloads goes through the real build, then the real page
// layout: none of the payloads may reach the HTML.
const payload = [
  '<a href="https://help.example/faq" onclick="alert(6)" target="_blank">よくある質問</a>',
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(2)>",
  '<a href="javascript:alert(3)">x</a>',
  '<a href="data:text/html,<script>alert(4)</script>">y</a>',
  "<svg onload=alert(5)>",
  '<iframe src="https://evil.example"></iframe>',
].join("");

describe("support messages with markup", () => {
  it("never carry an XSS payload to a page", () => {
    const target = rawBrands.find((brand) => brand.id === "gungnir-aurora")!;
    const hostile = {
      ...target,
      support: { ...target.support, defaultMessage: payload, smsMessage: payload, totpMessage: payload },
    };
    const data = buildBrandData({
      brands: rawBrands.map((brand) => (brand.id === target.id ? hostile : brand)),
      default: defaultBrand,
      clients,
    });
    const brand = data.brands.find((b) => b.id === target.id)!;
    const html = renderToString(
      <PageContext.Provider
        value={{ brand, environment: "prod", mailSenderDomain: "mail.example", earlierServiceName: "x" }}
      >
        <Card title="t">body</Card>
      </PageContext.Provider>,
    );
    expect(html).toContain(
      '<a href="https://help.example/faq" target="_blank" rel="noopener noreferrer">よくある質問</a>',
    );
    for (const forbidden of [
      "<script",
      "onerror",
      "onload",
      "onclick",
      "javascript:",
      "data:text",
      "<iframe",
      "<svg onload",
      "alert(",
    ]) {
      expect(html, forbidden).not.toContain(forbidden);
    }
  });
});
