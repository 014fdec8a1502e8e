// Structured JSON logs (ARCHITECTURE §8): an event name and fields, never a token, password or code.
type Level = "info" | "warn" | "error";

export function logEvent(
  level: Level,
  event: string,
  fields: Record<string, string | number | boolean | undefined> = {},
): void {
  console[level](JSON.stringify({ level, event, ...fields }));
}
