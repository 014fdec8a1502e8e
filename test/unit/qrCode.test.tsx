import { createHash } from "node:crypto";
import fc from "fast-check";
import { create } from "qrcode/lib/core/qrcode.js";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { QrCode, qrSegments, qrSymbol } from "../../pages/layout/QrCode";
import { allBrands, brandById } from "../../themes/brands";
import { otpauthUri } from "../../worker/flow/otpauthUri";

// The TOTP setup page's QR code chooses its mask (ISO/IEC 18004 §7.8.3) without qrcode's search
// (pages/layout/qrMask.ts). The symbol must be the one qrcode itself would have drawn, module for module.

const markup = (text: string) => renderToStaticMarkup(<QrCode text={text} label="QR" />);

/** Secrets as the identity API answers them (worker/identity/client.ts `totpSecretCode`): base32, 16 to 128. */
const secret = fc
  .tuple(fc.stringMatching(/^[A-Z2-7]{16,128}$/), fc.constantFrom("", "=", "===="))
  .map(([key, padding]) => key + padding);

/** The URIs the site puts in the QR code (worker/flow/otpauthUri.ts): any brand, an account or none. */
const uri = fc
  .tuple(fc.constantFrom(...allBrands()), fc.option(fc.emailAddress(), { nil: undefined }), secret)
  .map(([brand, account, key]) => otpauthUri(brand, account, key));

/**
 * URIs where two masks share the lowest penalty, about one in a hundred: qrcode keeps the lower mask (5 of 5 and 6,
 * 4 of 4 and 5, 2 of 2 and 4), which random URIs alone seldom tried.
 */
const aurora = brandById("gungnir-aurora")!;
const ties = [
  otpauthUri(aurora, "user59@example.com", "WIGLWHUFKHD4ZRWO7FMCBBLCFUUFM2E7"),
  otpauthUri(aurora, "user76@example.com", "ZLEEMRMYDZAXSF23PVBJ6SEE664HBNM6"),
  otpauthUri(aurora, "user355@example.com", "IHZFQNUT6OWTN7AFZWV3T2THYVXG27JP"),
];

describe("the TOTP setup QR code", () => {
  it("has the mask and the modules qrcode's own mask search gives", () => {
    fc.assert(
      fc.property(uri, (text) => {
        const searched = create(qrSegments(text), { errorCorrectionLevel: "M" });
        const { modules, maskPattern } = qrSymbol(text);
        expect(maskPattern).toBe(searched.maskPattern);
        expect(modules.size).toBe(searched.modules.size);
        expect(Buffer.from(modules.data).equals(Buffer.from(searched.modules.data))).toBe(true);
      }),
      { numRuns: 300, examples: ties.map((text) => [text]) },
    );
  }, 60_000);

  it("is tried on URIs for which each of the eight masks wins", () => {
    const chosen = new Set(fc.sample(uri, { numRuns: 400, seed: 23 }).map((text) => qrSymbol(text).maskPattern));
    expect([...chosen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("draws the same markup as qrcode's own mask search did for every brand", () => {
    // Recorded with qrcode's own mask search, before the site chose the mask itself: every brand, with and without an account, secrets of
    // 16, 32 and 128 characters (QR versions 7 to 15).
    const keys = ["JBSWY3DPEHPK3PXP", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".repeat(4)];
    const texts = allBrands().flatMap((brand) =>
      keys.flatMap((key) => [otpauthUri(brand, "new.user@example.com", key), otpauthUri(brand, undefined, key)]),
    );
    const digest = createHash("sha256");
    for (const text of texts) digest.update(markup(text));
    expect(digest.digest("hex")).toBe("8d8f33d0ab1eda4acad7012e2cd4c85fbaa3e1f3372293ffaf98c67b70740f01");
  });
});
