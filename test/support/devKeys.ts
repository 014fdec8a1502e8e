import { readFileSync } from "node:fs";

/** The dev environment's public session keys (wrangler.toml [env.dev.vars]): what the previewed site seals with. */
export function devSessionKeys(): string {
  const toml = readFileSync("wrangler.toml", "utf8");
  const found = /^SESSION_KEYS\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!found) throw new Error("wrangler.toml [env.dev.vars] has no SESSION_KEYS");
  return found;
}
