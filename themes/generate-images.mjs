// Draws public/brands/<serviceId>/{logo,background,favicon}.svg from the colours in themes/data/brands.ts.
// Run after adding a brand or changing its colours: node themes/generate-images.mjs
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const dataFile = new URL("./data/brands.ts", import.meta.url);
const outDir = new URL("../public/brands/", import.meta.url);
const font = 'font-family="Helvetica Neue,Arial,sans-serif" font-weight="700"';

// A regex over the data file is enough: every brand is one object literal with its colours on one line (either quote
// style: Biome writes double quotes).
function readBrands(source) {
  return source
    .split(/\bid: ["']/)
    .slice(1)
    .map((chunk) => {
      const id = /^[^"']*/.exec(chunk)[0];
      const primary = /primary: ["'](#[0-9a-f]{6})["']/i.exec(chunk)?.[1];
      const secondary = /\bsecondary: ["'](#[0-9a-f]{6})["']/i.exec(chunk)?.[1];
      const background = /background: \{ secondary: ["'](#[0-9a-f]{6})["'] \}/i.exec(chunk)?.[1];
      if (!primary || !secondary) throw new Error(`no colours found for ${id}`);
      return { id, primary, secondary, background };
    });
}

// The Latin wordmark: the brand part of the id, except where the id is a code name.
const wordmarks = { client: "KAZAHANA", "liqueur-lemon-money-forword": "LEMON × KAKEIBO", default: "" };

function wordmarkOf(id) {
  return wordmarks[id] ?? id.split("-").slice(1).join(" ").toUpperCase();
}

function tint(hex, amount) {
  const channels = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16));
  return `#${channels
    .map((c) =>
      Math.round(255 - (255 - c) * amount)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

// One mark shape per family, so brands of a family look related.
function markShape(id, fill) {
  const family = id.split("-")[0];
  switch (family) {
    case "gungnir":
      return `<rect x="2" y="4" width="32" height="32" rx="8" fill="${fill}"/>`;
    case "izarra":
      return `<circle cx="18" cy="20" r="16" fill="${fill}"/>`;
    case "liqueur":
      return `<path d="M18 3C27 12 34 18 34 25a16 12 0 0 1-32 0C2 18 9 12 18 3z" fill="${fill}"/>`;
    case "nosh":
      return `<path d="M18 3l15 8.5v17L18 37 3 28.5v-17z" fill="${fill}"/>`;
    default:
      return `<path d="M18 2l16 18-16 18L2 20z" fill="${fill}"/>`;
  }
}

function logo({ id, primary, secondary }) {
  if (id === "default") {
    return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 40" width="160" height="40"><circle cx="80" cy="20" r="17" fill="${primary}"/><circle cx="80" cy="16" r="5" fill="#fff"/><path d="M77.5 19h5l1.5 11h-8z" fill="#fff"/></svg>\n`;
  }
  const word = wordmarkOf(id);
  const initials = word
    .split(/[ ×]+/)
    .filter(Boolean)
    .map((part) => part[0])
    .slice(0, 2)
    .join("");
  // The wordmark has 114 of the logo's 160 units. A bold capital is about 0.7 em wide, and each letter adds the
  // letter-spacing: a word that would still run past the logo's edge is squeezed to fit, whatever the font.
  const room = 114;
  const spacing = 0.8; // the letter-spacing below
  const size = Math.min(15, room / (word.length * 0.7));
  const squeeze =
    word.length * (size * 0.7 + spacing) > room ? ` textLength="${room}" lengthAdjust="spacingAndGlyphs"` : "";
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 40" width="160" height="40">`,
    markShape(id, primary),
    `<circle cx="32" cy="7" r="4.5" fill="${secondary}" stroke="#fff" stroke-width="1.5"/>`,
    `<text x="18" y="${initials.length > 1 ? 25 : 26}" ${font} font-size="${initials.length > 1 ? 12 : 16}" fill="#fff" text-anchor="middle">${initials}</text>`,
    `<text x="42" y="${20 + size * 0.36}" ${font} font-size="${size.toFixed(1)}" letter-spacing=".8" fill="${primary}"${squeeze}>${word}</text>`,
    `</svg>\n`,
  ].join("");
}

function background({ id, primary, secondary, background }) {
  const top = background ?? tint(primary, 0.06);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1440 900" preserveAspectRatio="xMidYMid slice">`,
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="#ffffff"/></linearGradient></defs>`,
    `<rect width="1440" height="900" fill="url(#g)"/>`,
    `<circle cx="1320" cy="90" r="320" fill="${primary}" opacity="${id === "default" ? ".03" : ".06"}"/>`,
    `<circle cx="120" cy="860" r="260" fill="${secondary}" opacity=".12"/>`,
    `<path d="M0 700C300 620 520 780 820 700S1260 600 1440 660" stroke="${primary}" stroke-width="2" fill="none" opacity=".08"/>`,
    `<path d="M0 740C320 660 560 820 860 740S1280 640 1440 700" stroke="${secondary}" stroke-width="2" fill="none" opacity=".16"/>`,
    `</svg>\n`,
  ].join("");
}

function favicon({ id, primary, secondary }) {
  const initial = id === "default" ? "" : wordmarkOf(id)[0];
  const mark = initial
    ? `<text x="16" y="22.5" ${font} font-size="18" fill="#fff" text-anchor="middle">${initial}</text>`
    : `<circle cx="16" cy="13" r="4" fill="#fff"/><path d="M14 16h4l1 9h-6z" fill="#fff"/>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">`,
    `<rect width="32" height="32" rx="6" fill="${primary}"/>`,
    `<rect x="4" y="26" width="24" height="2" rx="1" fill="${secondary}" opacity=".7"/>`,
    mark,
    `</svg>\n`,
  ].join("");
}

const brands = readBrands(readFileSync(dataFile, "utf8"));
for (const brand of brands) {
  const dir = new URL(`${brand.id}/`, outDir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL("logo.svg", dir), logo(brand));
  writeFileSync(new URL("background.svg", dir), background(brand));
  writeFileSync(new URL("favicon.svg", dir), favicon(brand));
}
console.log(`drew ${brands.length} brands into public/brands/`);
