import { create } from "qrcode/lib/core/qrcode.js";

const QUIET_ZONE = 4;

/** The modules of a QR code as one SVG path, a run of dark modules per rectangle: no script, no markup strings. */
function modulePath(text: string): { size: number; path: string } {
  const { modules } = create(text, { errorCorrectionLevel: "M" });
  const parts: string[] = [];
  for (let row = 0; row < modules.size; row += 1) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col += 1;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col += 1;
      parts.push(`M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h-${col - start}z`);
    }
  }
  return { size: modules.size + QUIET_ZONE * 2, path: parts.join("") };
}

/** SPEC §2 MFASetupTOTP: the authenticator-app QR code, drawn on the server. */
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
      <path d={path} fill="#000" />
    </svg>
  );
}
