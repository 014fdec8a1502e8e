import type { BitMatrix } from "qrcode";
import { getEncodedBits } from "qrcode/lib/core/format-info.js";

// ISO/IEC 18004 §7.8 data masking, for pages/layout/QrCode.tsx. qrcode chooses a mask by building the symbol eight
// times over (masking and unmasking every module through a switch of divisions) and scoring each with four passes
// of method calls: the largest single cost of a TOTP setup page's render. Here qrcode builds the symbol once, with
// mask 0, and the eight candidates are scored together: a module's byte holds its colour under mask p in bit p, so
// one bitwise operation tests a rule under all eight masks, and its answer (the set of masks the rule holds for, a
// byte) indexes the points it gives. Each mask then adds up the points of the sets that contain it.
// The rules and points are qrcode's reading of §7.8.3 (lib/core/mask-pattern.js), so the symbol is the one it drew:
//   N1  3 + (L − 5) for a run of L ≥ 5 modules of one colour in a row or column
//   N2  3 for each 2×2 block of one colour
//   N3  40 for each 1011101 with four light modules before or after it, in a row or column, within the symbol
//   N4  10 × |⌈percentage of dark modules / 5⌉ − 10| (so 50–55 % dark already costs 10)
// and the lowest score wins, the lower mask on a tie.

/** §7.8.2 Table 10: whether mask `p` inverts the data module in row `i`, column `j` (qrcode's getMaskAt). */
const MASKS: ReadonlyArray<(i: number, j: number) => boolean> = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

/** Error correction level M (its two format bits, 00), the only level QrCode.tsx draws. */
const LEVEL_M = { bit: 0 };

/** The format information's 15 bits, bit 0 first, as module indices: each bit is drawn twice (§7.9.1, Figure 25). */
function formatModules(size: number): Array<[number, number]> {
  const at = (row: number, col: number) => row * size + col;
  return Array.from({ length: 15 }, (_, i) => [
    at(i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, 8),
    at(8, i < 8 ? size - i - 1 : i < 9 ? 15 - i : 14 - i),
  ]);
}

/** Per symbol size (a version has one size, and one set of function modules): built once per isolate. */
const flipsBySize = new Map<number, Uint8Array>();

/** Per module, bit `p` set where mask `p`'s symbol differs from mask 0's: data modules and format information. */
function flipsFor({ size, reservedBit }: BitMatrix): Uint8Array {
  const cached = flipsBySize.get(size);
  if (cached) return cached;
  // Per module, bit p: what mask p XORs into a data module, or what format information p draws there.
  const masked = new Uint8Array(size * size);
  for (let i = 0; i < size; i += 1) {
    for (let j = 0; j < size; j += 1) {
      if (reservedBit[i * size + j]) continue;
      masked[i * size + j] = MASKS.reduce((bits, inverts, p) => bits | (Number(inverts(i, j)) << p), 0);
    }
  }
  const formats = MASKS.map((_, p) => getEncodedBits(LEVEL_M, p));
  formatModules(size).forEach((indices, bit) => {
    const drawn = formats.reduce((bits, format, p) => bits | (((format >> bit) & 1) << p), 0);
    for (const index of indices) masked[index] = drawn;
  });
  // Against mask 0's symbol, the one qrcode drew.
  const flips = masked.map((bits) => bits ^ (bits & 1 ? 0xff : 0));
  flipsBySize.set(size, flips);
  return flips;
}

// Scratch space, reused: applyBestMask runs to its end without yielding, so no two calls share it at once.
/** Per module, bit `p` its colour (1 dark) under mask `p`. */
let colours = new Uint8Array(0);
/** N1 to N3 points by the set of masks they apply to. */
const points = new Int32Array(256);
/** Dark modules by the set of masks under which they are dark. */
const darkModules = new Int32Array(256);

/** Adds `amount` to the entry of a set of masks. */
function add(counts: Int32Array, masks: number, amount: number): void {
  counts[masks] = (counts[masks] ?? 0) + amount;
}

/**
 * Per module of a row or column (177, version 40's side): the masks under which 1011101 ends there, and four light
 * modules.
 */
const finders = new Uint8Array(177);
const lights = new Uint8Array(177);

/** N1 and N3 into `points`, along the row or column of `size` modules of `colours` from `start`, `step` apart. */
function scoreLine(start: number, step: number, size: number): void {
  // The last seven modules, m0 the current one.
  let m0 = colours[start] ?? 0;
  let m1 = 0,
    m2 = 0,
    m3 = 0,
    m4 = 0,
    m5 = 0,
    m6 = 0;
  // Masks under which module k − 1 has the colour of the one before it, and the same for k − 2 and k − 3.
  let same1 = 0,
    same2 = 0,
    same3 = 0;
  let fiveBefore = 0;
  for (let k = 1; k < size; k += 1) {
    m6 = m5;
    m5 = m4;
    m4 = m3;
    m3 = m2;
    m2 = m1;
    m1 = m0;
    m0 = colours[start + k * step] ?? 0;
    const same = ~(m0 ^ m1) & 0xff;
    // Masks under which modules k − 4 to k have one colour. A run of L ≥ 5 scores L − 2: 1 at each of its last
    // L − 4 modules, and 2 more at its fifth.
    const five = same & same1 & same2 & same3;
    add(points, five, 1);
    add(points, five & ~fiveBefore, 2);
    fiveBefore = five;
    same3 = same2;
    same2 = same1;
    same1 = same;
    lights[k] = ~(m3 | m2 | m1 | m0) & 0xff;
    finders[k] = m6 & ~m5 & m4 & m3 & m2 & ~m1 & m0;
    // 10111010000 or 00001011101 ending at k.
    if (k >= 10) {
      add(points, ((finders[k - 4] ?? 0) & (lights[k] ?? 0)) | ((lights[k - 7] ?? 0) & (finders[k] ?? 0)), 40);
    }
  }
}

/** qrcode's penalty of each mask's symbol, given `colours` for a symbol of `size` × `size`. */
function penalties(size: number): number[] {
  points.fill(0);
  darkModules.fill(0);
  for (let a = 0; a < size; a += 1) {
    scoreLine(a * size, 1, size);
    scoreLine(a, size, size);
  }
  for (let i = 0; i < colours.length; i += 1) add(darkModules, colours[i] ?? 0, 1);
  // N2: each block of four, by its bottom right module i.
  for (let row = 1; row < size; row += 1) {
    for (let i = row * size + 1; i < (row + 1) * size; i += 1) {
      const module = colours[i] ?? 0;
      const left = colours[i - 1] ?? 0;
      const up = colours[i - size] ?? 0;
      const upLeft = colours[i - size - 1] ?? 0;
      add(points, ~((module ^ left) | (module ^ up) | (module ^ upLeft)) & 0xff, 3);
    }
  }
  return MASKS.map((_, p) => {
    let score = 0;
    let dark = 0;
    for (let masks = 1; masks < 256; masks += 1) {
      if (!((masks >> p) & 1)) continue;
      score += points[masks] ?? 0;
      dark += darkModules[masks] ?? 0;
    }
    return score + 10 * Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  });
}

/**
 * Takes a level-M symbol qrcode drew with mask 0 (`create(…, { maskPattern: 0 })`) to the mask qrcode's own search
 * would have chosen, in place (data modules and format information), and answers that mask.
 */
export function applyBestMask(modules: BitMatrix): number {
  const { size, data } = modules;
  const flips = flipsFor(modules);
  if (colours.length !== data.length) colours = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 1) colours[i] = (data[i] ? 0xff : 0) ^ (flips[i] ?? 0);
  const scores = penalties(size);
  // The first of the lowest: the lower mask on a tie.
  const best = scores.indexOf(Math.min(...scores));
  for (let i = 0; i < data.length; i += 1) data[i] = (data[i] ?? 0) ^ (((flips[i] ?? 0) >> best) & 1);
  return best;
}
