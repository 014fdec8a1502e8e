import { describe, expect, it } from "vitest";
import { loginContextNames } from "../../messages/ja";
import { browserFamily, osFamily, placeOf } from "../../worker/flow/loginContext";
import { credentialDigest } from "../../worker/session/deviceCredential";
import { TEST_DEVICE_DIGEST, TEST_DEVICE_KEY } from "../support/testDevice";

// docs/devices.md `context.browser` and `context.os`: families only, from the User-Agent strings the brands' customers
// send (desktop, phones, tablets, the brands' apps, other webviews), and the edge's place, checked before it is sent.

const { app: APP, other: OTHER } = loginContextNames;

const USER_AGENTS: [string, string, string, string][] = [
  [
    "Chrome on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome",
    "Windows",
  ],
  [
    "Edge on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86",
    "Edge",
    "Windows",
  ],
  [
    "Firefox on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Firefox",
    "Windows",
  ],
  [
    "Safari on macOS",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Safari",
    "macOS",
  ],
  [
    "Chrome on macOS",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome",
    "macOS",
  ],
  [
    "Safari on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Safari",
    "iOS",
  ],
  [
    "Chrome on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
    "Chrome",
    "iOS",
  ],
  [
    "Firefox on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15",
    "Firefox",
    "iOS",
  ],
  [
    "Edge on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15",
    "Edge",
    "iOS",
  ],
  [
    "Safari on iPad",
    "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1",
    "Safari",
    "iOS",
  ],
  [
    "Chrome on Android",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Chrome",
    "Android",
  ],
  [
    "Samsung Internet on Android",
    "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
    "Samsung Internet",
    "Android",
  ],
  [
    "Edge on Android",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.2903.87",
    "Edge",
    "Android",
  ],
  ["Firefox on Android", "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0", "Firefox", "Android"],
  [
    "another app's Android WebView",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36",
    OTHER,
    "Android",
  ],
  [
    "another app's iOS webview (no Safari token)",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    OTHER,
    "iOS",
  ],
  [
    "a brand's app on Android",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36 KazahanaApp/3.2.0",
    APP,
    "Android",
  ],
  [
    "a brand's app on iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KazahanaApp/3.2",
    APP,
    "iOS",
  ],
  [
    "Opera on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
    OTHER,
    "Windows",
  ],
  [
    "Chrome on ChromeOS",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome",
    "ChromeOS",
  ],
  ["Firefox on Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox", "Linux"],
  [
    "WebKitGTK's MiniBrowser on Linux",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
    "Safari",
    "Linux",
  ],
  ["curl", "curl/8.5.0", OTHER, OTHER],
  ["an empty User-Agent", "", OTHER, OTHER],
  ["a huge User-Agent", `${"x".repeat(2000)} Chrome/1 Windows`, OTHER, OTHER],
];

describe("the login context's browser and OS families (docs/devices.md)", () => {
  it.each(USER_AGENTS)("%s", (_, userAgent, browser, os) => {
    expect({ browser: browserFamily(userAgent), os: osFamily(userAgent) }).toEqual({ browser, os });
  });

  it("names no browser and no system without a User-Agent", () => {
    expect([browserFamily(undefined), osFamily(undefined)]).toEqual([OTHER, OTHER]);
  });
});

describe("the login context's place: request.cf, checked", () => {
  it.each([
    ["a country and region", { country: "JP", region: "Tokyo" }, { country: "JP", region: "Tokyo" }],
    ["no cf at all", undefined, {}],
    ["a country alone", { country: "US" }, { country: "US" }],
    ["Tor's T1 (not a country)", { country: "T1", region: "Tokyo" }, { region: "Tokyo" }],
    ["a lower-case country", { country: "jp" }, {}],
    ["a three-letter country", { country: "JPN" }, {}],
    ["a region of 64 characters", { region: "r".repeat(64) }, { region: "r".repeat(64) }],
    ["a region of 65 characters", { region: "r".repeat(65) }, {}],
    ["an empty region", { region: "" }, {}],
    ["a region with a control character", { region: "Tokyo\n" }, {}],
    ["a region in Japanese", { region: "東京都" }, { region: "東京都" }],
    ["values that are not strings", { country: 81, region: ["Tokyo"] }, {}],
  ])("%s", (_, cf, place) => {
    expect(placeOf(cf)).toEqual(place);
  });
});

describe("the test device (test/support/testDevice.ts)", () => {
  it("is named to the identity API by the digest its credential gives", async () => {
    expect(await credentialDigest({ key: TEST_DEVICE_KEY })).toBe(TEST_DEVICE_DIGEST);
    expect(TEST_DEVICE_DIGEST).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
