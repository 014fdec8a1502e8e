import type { BitMatrix, QRCodeSegment } from "qrcode";
import { create } from "qrcode/lib/core/qrcode.js";
import { applyBestMask } from "./qrMask";

const QUIET_ZONE = 4;

// QR alphanumeric mode: 5.5 bits a character instead of 8. A run shorter than this costs more to switch into.
const ALPHANUMERIC_RUN = /[0-9A-Z $%*+\-./:]{12,}/y;

/**
 * The text as QR segments: long runs of alphanumeric-mode characters (an otpauth URI's percent-encoded brand name,
 * its base32 secret) in that mode, the rest as bytes. Gives the same symbol version as the library's own optimal
 * segmentation, which costs twice as long (a graph search per render, on the worker's CPU time).
 */
export function qrSegments(text: string): QRCodeSegment[] {
  const found: QRCodeSegment[] = [];
  const utf8 = new TextEncoder();
  let bytes = "";
  for (let at = 0; at < text.length; ) {
    ALPHANUMERIC_RUN.lastIndex = at;
    const run = ALPHANUMERIC_RUN.exec(text)?.[0];
    if (run) {
      if (bytes) found.push({ data: utf8.encode(bytes), mode: "byte" });
      bytes = "";
      found.push({ data: run, mode: "alphanumeric" });
      at += run.length;
    } else {
      bytes += text[at];
      at += 1;
    }
  }
  if (bytes) found.push({ data: utf8.encode(bytes), mode: "byte" });
  return found;
}

/**
 * The symbol for `text` at error correction level M, with the mask qrcode's own search would choose: the library
 * draws it once, with mask 0, and pages/layout/qrMask.ts finds and applies the best one (the search in qrcode builds
 * and scores all eight symbols, most of a TOTP setup page's render).
 */
export function qrSymbol(text: string): { modules: BitMatrix; maskPattern: number } {
  const { modules } = create(qrSegments(text), { errorCorrectionLevel: "M", maskPattern: 0 });
  return { modules, maskPattern: applyBestMask(modules) };
}

/**
 * The modules of a QR code as one SVG path to stroke, one horizontal line a module thick per run of dark modules:
 * `M<x> <y>.5h<run>` starts a row, `m<gap> 0h<run>` goes on along it. Half the bytes of a rectangle per run
 * (`M…h…v1h…z`), on the largest page this site renders. No script, no markup strings.
 */
function modulePath(text: string): { size: number; path: string } {
  const { modules } = qrSymbol(text);
  const parts: string[] = [];
  for (let row = 0; row < modules.size; row += 1) {
    let col = 0;
    let end = -1;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col += 1;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col += 1;
      const move = end < 0 ? `M${start + QUIET_ZONE} ${row + QUIET_ZONE}.5` : `m${start - end} 0`;
      parts.push(`${move}h${col - start}`);
      end = col;
    }
  }
  return { size: modules.size + QUIET_ZONE * 2, path: parts.join("") };
}

/** product §2 MFASetupTOTP: the authenticator-app QR code, drawn on the server. */
export function QrCode({ text, label, pixels = 200 }: { text: string; label: string; pixels?: number }) {
  const { size, path } = modulePath(text);
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      width={pixels}
      height={pixels}
      shapeRendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} stroke="#000" />
    </svg>
  );
}
