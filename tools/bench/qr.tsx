import { create } from "qrcode/lib/core/qrcode.js";
import { renderToStaticMarkup } from "react-dom/server";
import { QrCode, qrSegments, qrSymbol } from "../../pages/layout/QrCode";
import { SCREEN_TOTP_SECRET } from "../../test/support/screens";
import { rawBrands } from "../../themes/data/brands";
import { otpauthUri } from "../../worker/flow/otpauthUri";

// `npm run bench:qr`: the TOTP setup page's QR code alone, in Node (docs/benchmarks.md). Each variant is
// timed in rounds taken in turn, so a busy machine slows them alike; per call, the median and the best round.
// `--smoke` (.ci/run): 2 rounds of 20 calls, so that a QR bench that breaks fails CI.

const SMOKE = process.argv.includes("--smoke");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (SMOKE ? 2 : 15));
const CALLS = Number(process.env.BENCH_CALLS ?? (SMOKE ? 20 : 200));

const aurora = rawBrands.find((brand) => brand.id === "gungnir-aurora")!;
const texts = {
  "the bench's TOTP setup screen": otpauthUri(aurora, "new.user@example.com", SCREEN_TOTP_SECRET),
  "a 128-character secret": otpauthUri(aurora, "a.rather.long.address@example.co.jp", "ABCDEFGHIJKLMNOP".repeat(8)),
};

const variants: Record<string, (text: string) => unknown> = {
  "qrcode's own mask search (before)": (text) => create(qrSegments(text), { errorCorrectionLevel: "M" }),
  "qrSymbol: mask 0, then qrMask (after)": (text) => qrSymbol(text),
  "  of which qrcode with mask 0 alone": (text) =>
    create(qrSegments(text), { errorCorrectionLevel: "M", maskPattern: 0 }),
  "<QrCode> markup (after)": (text) => renderToStaticMarkup(<QrCode text={text} label="QR" />),
};

for (const [name, text] of Object.entries(texts)) {
  const { modules, maskPattern } = qrSymbol(text);
  console.log(`${name}: ${text.length} characters, ${modules.size}×${modules.size} modules, mask ${maskPattern}`);
  const times = new Map(Object.keys(variants).map((variant) => [variant, [] as number[]]));
  for (const run of Object.values(variants)) for (let i = 0; i < CALLS; i += 1) run(text);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [variant, run] of Object.entries(variants)) {
      const started = performance.now();
      for (let i = 0; i < CALLS; i += 1) run(text);
      times.get(variant)!.push(((performance.now() - started) * 1000) / CALLS);
    }
  }
  for (const [variant, perCall] of times) {
    perCall.sort((a, b) => a - b);
    const median = perCall[Math.floor(perCall.length / 2)]!;
    console.log(
      `  ${variant.padEnd(40)} median ${median.toFixed(0).padStart(5)} µs   best ${perCall[0]!.toFixed(0)} µs`,
    );
  }
}
