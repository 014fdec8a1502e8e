import { readFileSync } from "node:fs";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { sealedCookies, type SealedCookieName, type SealedState } from "../../worker/session/cookies";
import { parseSessionKeys } from "../../worker/session/keys";
import { seal } from "../../worker/session/sealed";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

// The tests seal cookie states with the same public development key the dev environment uses.
function devSessionKeys(): string {
  const toml = readFileSync("wrangler.toml", "utf8");
  const found = /^SESSION_KEYS\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!found) throw new Error("wrangler.toml [env.dev.vars] has no SESSION_KEYS");
  return found;
}

export async function addSealedCookie<N extends SealedCookieName>(context: BrowserContext, baseUrl: string, which: N, value: SealedState<N>): Promise<void> {
  const spec = sealedCookies[which];
  const token = await seal(spec.name, value, { keys: parseSessionKeys(devSessionKeys()), ttlSeconds: 600 });
  await context.addCookies([{ name: `__Host-${spec.name}`, value: token, url: `${baseUrl}/`, secure: true, httpOnly: true, sameSite: spec.sameSite }]);
}
