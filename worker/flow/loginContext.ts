import { nativeAppVersion } from "../../islands/nativeBridgeProtocol";
import { loginContextNames } from "../../messages/ja";
import type { AppContext } from "../context";
import type { LoginContext } from "../identity/client";
import { devicesOn, ensureDeviceDigest } from "../session/deviceCredential";

// docs/devices.md "The contract": what the site tells the identity API about a login it sees (the browser's device
// credential, the edge's country and region, the browser and OS families); the API decides the risk. Sent with every
// login call while DEVICE_CONFIRMATION is on; with it off, nothing is sent and no credential is made.

/** Families only: the first rule whose pattern the User-Agent matches. The order matters (Edge says Chrome too). */
const BROWSERS: [RegExp, string][] = [
  [/SamsungBrowser\//, "Samsung Internet"],
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  // Opera and Android's embedded WebView name Chrome too, but are not it.
  [/\bOPR\/|\bOpera\b|; wv\)/, loginContextNames.other],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  // iPadOS asks for desktop pages as a Mac: it is counted as macOS, as the User-Agent says.
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMacintosh\b|\bMac OS X\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

function firstMatch(rules: [RegExp, string][], userAgent: string): string {
  return rules.find(([pattern]) => pattern.test(userAgent))?.[1] ?? loginContextNames.other;
}

/** docs/devices.md `context.browser`: a brand's app (its webview's marker, docs/native-bridge.md) before any browser. */
export function browserFamily(userAgent: string | undefined): string {
  if (!userAgent || userAgent.length > 1024) return loginContextNames.other;
  if (nativeAppVersion(userAgent) !== null) return loginContextNames.app;
  return firstMatch(BROWSERS, userAgent);
}

/** docs/devices.md `context.os`. */
export function osFamily(userAgent: string | undefined): string {
  if (!userAgent || userAgent.length > 1024) return loginContextNames.other;
  return firstMatch(SYSTEMS, userAgent);
}

/**
 * `request.cf`'s place, when it is one: an ISO 3166-1 alpha-2 country; a region of 1 to 64 characters, none a control
 * character.
 */
export function placeOf(
  cf: { country?: unknown; region?: unknown } | undefined,
): Pick<LoginContext, "country" | "region"> {
  const place: Pick<LoginContext, "country" | "region"> = {};
  if (typeof cf?.country === "string" && /^[A-Z]{2}$/.test(cf.country)) place.country = cf.country;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (typeof cf?.region === "string" && /^[^\u0000-\u001f\u007f]{1,64}$/.test(cf.region)) place.region = cf.region;
  return place;
}

/**
 * The `context` of this request's login call, or undefined while the devices contract is off. The browser's device
 * credential is made here when it holds none (its cookie set on this response), so the login names a device the API
 * can bind once it completes.
 */
export async function loginContext(c: AppContext): Promise<LoginContext | undefined> {
  if (!devicesOn(c.env)) return undefined;
  const userAgent = c.req.header("User-Agent");
  return {
    device: await ensureDeviceDigest(c),
    ...placeOf(c.req.raw.cf as { country?: unknown; region?: unknown } | undefined),
    browser: browserFamily(userAgent),
    os: osFamily(userAgent),
  };
}
