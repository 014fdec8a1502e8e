import { decodeBase64url } from "../../islands/base64url";

// SESSION_KEYS is "kid:base64url-32-bytes" entries separated by commas; the first seals, all unseal (rotation).
export interface SessionKey {
  kid: string;
  secret: Uint8Array;
}

const KID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
let cached: { raw: string; keys: SessionKey[] } | undefined;

export function parseSessionKeys(raw: string | undefined): SessionKey[] {
  if (!raw) throw new Error("SESSION_KEYS is not configured");
  if (cached?.raw === raw) return cached.keys;
  const keys = raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [kid, encoded] = entry.split(":");
      if (!kid || !encoded || !KID_PATTERN.test(kid)) throw new Error("SESSION_KEYS entry must be kid:base64url");
      const secret = decodeBase64url(encoded);
      if (secret.length !== 32) throw new Error(`SESSION_KEYS entry ${kid} must hold 32 bytes`);
      return { kid, secret };
    });
  if (keys.length === 0) throw new Error("SESSION_KEYS holds no key");
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new Error("SESSION_KEYS has a repeated kid");
  cached = { raw, keys };
  return keys;
}

/** The development key of wrangler.toml's dev environment: public on purpose, so never valid elsewhere. */
const DEVELOPMENT_SECRETS = new Set(["ZGV2ZWxvcG1lbnQtb25seS1rZXktMzItYnl0ZXMhISE"]);

/** Why SESSION_KEYS cannot seal production cookies, or undefined when it can (architecture §8). */
export function sessionKeysProblem(raw: string | undefined): string | undefined {
  try {
    parseSessionKeys(raw);
  } catch (error) {
    return error instanceof Error ? error.message : "SESSION_KEYS is unusable";
  }
  const secrets = (raw ?? "").split(",").map((entry) => entry.trim().split(":")[1] ?? "");
  return secrets.some((secret) => DEVELOPMENT_SECRETS.has(secret))
    ? "SESSION_KEYS holds the public development key"
    : undefined;
}
