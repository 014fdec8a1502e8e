import { readMeta, writeMeta } from "./store";

/** The emulator clock: wall time plus an offset that tests move to reach expiry without waiting. */
export function clockOffset(sql: SqlStorage): number {
  return Number(readMeta(sql, "clock_offset_ms") ?? 0);
}

export function setClockOffset(sql: SqlStorage, offsetMs: number): void {
  writeMeta(sql, "clock_offset_ms", String(offsetMs));
}

export function emulatorNow(sql: SqlStorage): number {
  return Date.now() + clockOffset(sql);
}
