import { describe, expect, it } from "vitest";
import {
  type BridgeWindow,
  isOlderVersion,
  linkMessage,
  mailtoMessage,
  nativeAppVersion,
  nativeBridge,
  parseBridgeReply,
  updatePromptDue,
} from "../../islands/nativeBridgeProtocol";
import { common } from "../../messages/ja";
import { appUpdate, otherTab } from "../../messages/modals";
import { CLIENT, GUNGNIR } from "../support/vocabulary";
import { get, sealedCookie } from "./helpers";

const APP_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36 KazahanaApp/3.12.0";
const BROWSER_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";

const HOUR = 60 * 60 * 1000;
const NOW = Date.UTC(2026, 4, 1, 9);

function islandNames(html: string): string[] {
  return [...html.matchAll(/<div data-island="([A-Za-z]+)"/g)].map(([, name]) => name!);
}

async function signInHtml(userAgent: string): Promise<string> {
  const cookie = await sealedCookie("signIn", { loginChallenge: "login-challenge-0001" });
  return (await get(`/signIn?client_id=${CLIENT.clientId}`, [cookie], { "User-Agent": userAgent })).text();
}

describe("native app marker in the User-Agent (docs/native-bridge.md)", () => {
  it.each([
    [APP_UA, "3.12.0"],
    ["KazahanaApp/1", "1"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KazahanaApp/2.0.1",
      "2.0.1",
    ],
    ["Mozilla/5.0 (KazahanaApp/4.1; Android)", "4.1"],
    [BROWSER_UA, null],
    ["Mozilla/5.0 NotKazahanaApp/3.0", null],
    ["Mozilla/5.0 KazahanaApp/", null],
    ["Mozilla/5.0 KazahanaApp/3.x", null],
    ["Mozilla/5.0 KazahanaAppX/3.0", null],
    [`${"a ".repeat(600)}KazahanaApp/3.0`, null],
    ["", null],
  ])("%s → %s", (userAgent, version) => {
    expect(nativeAppVersion(userAgent)).toBe(version);
  });

  it("adds the NativeBridge host to a screen requested by the app, after the page's own islands", async () => {
    const names = islandNames(await signInHtml(APP_UA));
    expect(names.at(-1)).toBe("NativeBridge");
    expect(names.filter((name) => name === "NativeBridge")).toHaveLength(1);
  });

  it("gives the bridge the brand's app release rule from the brand data, and null to a brand without one", async () => {
    const props = (html: string) =>
      JSON.parse(
        (/<div data-island="NativeBridge" data-props="([^"]*)"/.exec(html)?.[1] ?? "null").replace(/&quot;/g, '"'),
      );
    const prompt = {
      title: appUpdate.title,
      body: appUpdate.body,
      actionLabel: appUpdate.actionLabel,
      later: common.later,
    };
    expect(props(await signInHtml(APP_UA))).toEqual({
      prompt,
      app: {
        recommendedVersion: "3.12.0",
        storeUrls: {
          ios: "https://apps.apple.com/jp/app/id6450000001",
          android: "https://play.google.com/store/apps/details?id=jp.example.kazahana",
        },
      },
    });
    const other = await get(`/resetPassword?client_id=${GUNGNIR.clientId}`, [], { "User-Agent": APP_UA });
    expect(props(await other.text())).toEqual({ app: null, prompt });
  });

  it("leaves the bridge out for a plain browser", async () => {
    const html = await signInHtml(BROWSER_UA);
    expect(islandNames(html)).not.toContain("NativeBridge");
    expect(html).toContain("<script");
  });

  it("a screen without islands ships no script in a plain browser, and only the bridge in the app", async () => {
    for (const path of ["/no/such/page", "/error"]) {
      const plain = await (await get(path, [], { "User-Agent": BROWSER_UA })).text();
      expect(plain).not.toContain("<script");
      expect(plain).not.toContain("data-island");
      const app = await (await get(path, [], { "User-Agent": APP_UA })).text();
      expect(islandNames(app)).toEqual(["NativeBridge"]);
      expect(app.match(/<script\b/g)).toHaveLength(1);
    }
  });
});

describe("session guard placement (product §4)", () => {
  it("guards the sign-in screen; the guard is given its product §8 texts from the catalogue", async () => {
    const html = await signInHtml(BROWSER_UA);
    expect(islandNames(html)).toContain("SessionGuard");
    const props = /<div data-island="SessionGuard" data-props="([^"]*)"/.exec(html)?.[1]?.replace(/&quot;/g, '"');
    expect(JSON.parse(props ?? "null")).toEqual({ modal: { title: otherTab.title, body: otherTab.body } });
  });

  it("does not guard a screen without islands, even in the app (the bridge does not count)", async () => {
    const app = await (await get("/no/such/page", [], { "User-Agent": APP_UA })).text();
    expect(islandNames(app)).not.toContain("SessionGuard");
  });
});

/** workerd's EventTarget refuses capture listeners; a window has them, so the stand-in drops only that flag. */
class WindowStandIn extends EventTarget {
  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    super.addEventListener(type, listener);
  }
  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    super.removeEventListener(type, listener);
  }
}

describe("native bridge protocol v1", () => {
  function fakeWebView(reply?: (message: Record<string, unknown>) => unknown) {
    const sent: Array<Record<string, unknown>> = [];
    const target = new WindowStandIn() as BridgeWindow;
    target.ReactNativeWebView = {
      postMessage(text: string) {
        const message = JSON.parse(text) as Record<string, unknown>;
        sent.push(message);
        const answer = reply?.(message);
        if (answer !== undefined)
          queueMicrotask(() => target.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(answer) })));
      },
    };
    return { target, sent };
  }

  it("is absent in a plain browser", () => {
    expect(nativeBridge(new EventTarget())).toBeNull();
  });

  it("posts versioned JSON with a correlation id", () => {
    const { target, sent } = fakeWebView();
    nativeBridge(target)!.post({ type: "openExternalBrowser", url: "https://example.com/" });
    expect(sent).toEqual([
      { v: 1, id: expect.stringMatching(/^[0-9a-f]{24}$/), type: "openExternalBrowser", url: "https://example.com/" },
    ]);
  });

  it("resolves a call with the reply naming its id, ignoring other messages", async () => {
    const { target, sent } = fakeWebView((message) => {
      // Noise first: another version, another id, junk; then the real reply.
      queueMicrotask(() => {
        target.dispatchEvent(new MessageEvent("message", { data: "not json" }));
        target.dispatchEvent(
          new MessageEvent("message", {
            data: JSON.stringify({ v: 2, type: "getNativeAppVersion", replyTo: message.id, ok: true, version: "9" }),
          }),
        );
        target.dispatchEvent(
          new MessageEvent("message", {
            data: { v: 1, type: "getNativeAppVersion", replyTo: "other", ok: true, version: "8" },
          }),
        );
      });
      return {
        v: 1,
        type: "getNativeAppVersion",
        replyTo: message.id,
        ok: true,
        version: "3.12.0",
        platform: "android",
      };
    });
    const reply = await nativeBridge(target)!.call({ type: "getNativeAppVersion" });
    expect(reply).toMatchObject({ ok: true, version: "3.12.0", platform: "android" });
    expect(sent[0]).toMatchObject({ v: 1, type: "getNativeAppVersion" });
  });

  it("rejects a failed reply and times out", async () => {
    const { target, sent } = fakeWebView((message) => ({
      v: 1,
      type: "getNativeAppVersion",
      replyTo: message.id,
      ok: false,
      error: "not ready",
    }));
    await expect(nativeBridge(target)!.call({ type: "getNativeAppVersion" })).rejects.toThrow("not ready");
    expect(sent[0]).toMatchObject({ type: "getNativeAppVersion" });
    await expect(nativeBridge(fakeWebView().target)!.call({ type: "getNativeAppVersion" }, 20)).rejects.toThrow(
      "no reply within 20 ms",
    );
  });

  it("parses only well-formed v1 replies of the types that have one", () => {
    const reply = { v: 1, type: "getNativeAppVersion", replyTo: "a", ok: true, version: "3.12.0", platform: "ios" };
    expect(parseBridgeReply(reply)).toEqual(reply);
    expect(parseBridgeReply(JSON.stringify(reply))).toEqual(reply);
    expect(parseBridgeReply({ ...reply, platform: "windows" })).toBeNull();
    expect(parseBridgeReply({ ...reply, version: "3.x" })).toBeNull();
    expect(parseBridgeReply({ v: 1, type: "getNativeAppVersion", replyTo: "a", ok: false })).toBeNull();
    expect(parseBridgeReply({ v: 1, type: "getNativeAppVersion", replyTo: "a", ok: false, error: "e" })).not.toBeNull();
    expect(parseBridgeReply({ v: 1, type: "openExternalBrowser", replyTo: "a", ok: true })).toBeNull();
    // Types no longer in the protocol (docs/native-bridge.md, "Not in the protocol") are ignored like junk.
    expect(
      parseBridgeReply({ v: 1, type: "requestCameraPermission", replyTo: "a", ok: true, granted: true }),
    ).toBeNull();
    expect(parseBridgeReply(`{"v":1,"type":"sendPushToken","replyTo":"a","ok":true}`)).toBeNull();
    expect(parseBridgeReply({ v: 1, type: "toString", replyTo: "a", ok: true })).toBeNull();
    expect(parseBridgeReply(null)).toBeNull();
  });

  it.each([
    ["3.11.9", "3.12.0", true],
    ["3.12", "3.12.0", false],
    ["3.12.0", "3.12.0", false],
    ["3.12.0.1", "3.12.0", false],
    ["3.2.0", "3.12.0", true],
    ["10.0", "9.99.99", false],
    ["2", "3.12.0", true],
    ["3.x", "3.12.0", false],
    ["", "3.12.0", false],
  ])("version %s is older than %s: %s", (version, than, older) => {
    expect(isOlderVersion(version, than)).toBe(older);
  });

  it.each([
    [null, true],
    [String(NOW - 24 * HOUR), true],
    [String(NOW - 24 * HOUR + 1), false],
    [String(NOW - 1), false],
    [String(NOW + HOUR), true],
    ["junk", true],
  ])("the update prompt (last shown %s) may show again: %s", (last, due) => {
    expect(updatePromptDue(last, NOW)).toBe(due);
  });

  it("turns links into messages: mail links, other origins and _blank; same-origin pages stay links", () => {
    const origin = "https://signin.test";
    expect(linkMessage("mailto:support@kazahana-sec.example", "", origin)).toEqual({
      type: "sendMail",
      to: "support@kazahana-sec.example",
    });
    expect(linkMessage("https://www.kazahana-sec.example/", "", origin)).toEqual({
      type: "openExternalBrowser",
      url: "https://www.kazahana-sec.example/",
    });
    expect(linkMessage("https://signin.test/help", "_blank", origin)).toEqual({
      type: "openExternalBrowser",
      url: "https://signin.test/help",
    });
    expect(linkMessage("https://signin.test/resetPassword", "", origin)).toBeNull();
    expect(linkMessage("tel:0120981234", "", origin)).toBeNull();
    expect(linkMessage("javascript:alert(1)", "_blank", origin)).toBeNull();
  });

  it("decodes mailto fields as RFC 6068 says (+ is literal)", () => {
    expect(
      mailtoMessage(
        "mailto:a%2Bb@example.com?subject=%E3%81%8A%E5%95%8F%E3%81%84%E5%90%88%E3%82%8F%E3%81%9B&body=1+1%0A2&cc=x@example.com",
      ),
    ).toEqual({
      type: "sendMail",
      to: "a+b@example.com",
      subject: "お問い合わせ",
      body: "1+1\n2",
    });
    expect(mailtoMessage("mailto:a@example.com?to=b@example.com")).toEqual({
      type: "sendMail",
      to: "a@example.com,b@example.com",
    });
    expect(mailtoMessage("mailto:%E0%A4%A@example.com")).toBeNull();
    expect(mailtoMessage("mailto:")).toBeNull();
  });
});
