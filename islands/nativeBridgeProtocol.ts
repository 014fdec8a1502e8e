// The JSON message protocol between the site and a brand's native app (product §1, architecture §5), version 1.
// docs/native-bridge.md is its prose form; the two change together. No token, session, verifier or
// challenge is ever a field of a message: the app and the page only exchange what is listed here.

/** Every message in either direction carries `v: 1`; a receiver ignores versions it does not know. */
export const BRIDGE_PROTOCOL_VERSION = 1;

/**
 * The app appends `KazahanaApp/<version>` (digits and dots) to its webview's User-Agent. The worker renders
 * the bridge island only for such requests, so a plain browser gets no bridge script at all.
 */
export const NATIVE_APP_UA_PRODUCT = "KazahanaApp";
const NATIVE_APP_UA = /(?:^|[\s;(])KazahanaApp\/(\d{1,6}(?:\.\d{1,6}){0,3})(?=$|[\s;)])/;

/** The app's version named by the User-Agent marker, or null when the request is not from the app. */
export function nativeAppVersion(userAgent: string | null | undefined): string | null {
  if (!userAgent || userAgent.length > 1024) return null;
  return NATIVE_APP_UA.exec(userAgent)?.[1] ?? null;
}

/** product §1/§9 "update prompt frequency 24": at most one update prompt in this many hours (docs/native-bridge.md). */
export const NATIVE_APP_UPDATE_PROMPT_FREQUENCY = 24;
const HOUR_MS = 60 * 60 * 1000;
/** localStorage: when the update prompt was last shown (epoch milliseconds). Not secret, not personal. */
export const UPDATE_PROMPTED_AT_KEY = "signin.updatePromptedAt";

/** Whether an update prompt may show now, given when the last one did (null: never, or unreadable). */
export function updatePromptDue(lastPromptedAt: string | null, now: number): boolean {
  if (lastPromptedAt === null) return true;
  const last = Number(lastPromptedAt);
  // Junk, or a time in the future (the clock was set back), counts as never prompted rather than never again.
  if (!Number.isFinite(last) || last > now) return true;
  return now - last >= NATIVE_APP_UPDATE_PROMPT_FREQUENCY * HOUR_MS;
}

const VERSION = /^\d{1,6}(?:\.\d{1,6}){0,3}$/;

/** `version` is older than `than`, comparing dot-separated numbers (missing parts are 0); false if either is malformed. */
export function isOlderVersion(version: string, than: string): boolean {
  if (!VERSION.test(version) || !VERSION.test(than)) return false;
  const a = version.split(".").map(Number);
  const b = than.split(".").map(Number);
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

// ---- page → app: `window.ReactNativeWebView.postMessage(JSON.stringify(message))` ----

interface Envelope<T extends string> {
  v: typeof BRIDGE_PROTOCOL_VERSION;
  type: T;
  /** Random correlation id; a reply names it in `replyTo`. */
  id: string;
}

/** Open an http(s) URL in the system browser, outside the webview. No reply. */
export interface OpenExternalBrowser extends Envelope<"openExternalBrowser"> {
  url: string;
}
/** Open the mail composer (a `mailto:` link's fields, decoded). No reply. */
export interface SendMail extends Envelope<"sendMail"> {
  to: string;
  subject?: string;
  body?: string;
}
/** Ask for the app's version and platform: the page's version check (product §1 "check version"). */
export type GetNativeAppVersion = Envelope<"getNativeAppVersion">;
/**
 * Ask whether the webview can use passkeys here (docs/passkeys.md "The brands' apps"): the app's association with
 * the sign-in host, and on Android the WebView's WebAuthn support switched on.
 */
export type GetWebAuthnSupport = Envelope<"getWebAuthnSupport">;

export type BridgeRequest = OpenExternalBrowser | SendMail | GetNativeAppVersion | GetWebAuthnSupport;

// ---- app → page: a `message` event whose data is the JSON text (or object) of a reply ----

/** What a successful reply carries, per request type that has one. */
export interface BridgeResults {
  getNativeAppVersion: { version: string; platform: "ios" | "android" };
  getWebAuthnSupport: { supported: boolean };
}
export type RepliedType = keyof BridgeResults;

export type BridgeReply<T extends RepliedType = RepliedType> =
  | ({ v: typeof BRIDGE_PROTOCOL_VERSION; type: T; replyTo: string; ok: true } & BridgeResults[T])
  | { v: typeof BRIDGE_PROTOCOL_VERSION; type: T; replyTo: string; ok: false; error: string };

/** Each replied type's check of an `ok: true` reply's own fields. */
const RESULT_CHECKS: { [T in RepliedType]: (reply: Record<string, unknown>) => boolean } = {
  getNativeAppVersion: (reply) =>
    typeof reply.version === "string" &&
    VERSION.test(reply.version) &&
    (reply.platform === "ios" || reply.platform === "android"),
  getWebAuthnSupport: (reply) => typeof reply.supported === "boolean",
};

/**
 * The cookie the bridge island sets when the app says its webview cannot use passkeys: the worker then offers no
 * passkey (no button, no enrolment), and `data-webauthn="off"` hides the button on the page that asked. Not secret.
 */
export const WEBAUTHN_OFF_COOKIE = "webauthn";

function isRepliedType(type: unknown): type is RepliedType {
  return typeof type === "string" && Object.hasOwn(RESULT_CHECKS, type);
}

/** A `message` event's data as a v1 reply, or null for anything else (other senders, other versions, junk). */
export function parseBridgeReply(data: unknown): BridgeReply | null {
  let value: unknown = data;
  if (typeof value === "string") {
    if (value.length > 65_536) return null;
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null) return null;
  const reply = value as Record<string, unknown>;
  if (reply.v !== BRIDGE_PROTOCOL_VERSION || !isRepliedType(reply.type)) return null;
  if (typeof reply.replyTo !== "string" || typeof reply.ok !== "boolean") return null;
  if (reply.ok === false && typeof reply.error !== "string") return null;
  if (reply.ok === true && !RESULT_CHECKS[reply.type](reply)) return null;
  return reply as unknown as BridgeReply;
}

/** Without the `v`/`id` envelope: what a caller passes. */
export type BridgeCall<M extends BridgeRequest = BridgeRequest> = M extends BridgeRequest ? Omit<M, "v" | "id"> : never;

/** The parts of `window` the bridge uses (a plain EventTarget in tests). */
export interface BridgeWindow extends EventTarget {
  ReactNativeWebView?: { postMessage(message: string): void } | undefined;
}

export interface NativeBridge {
  /** Sends a message that has no reply. */
  post(message: BridgeCall): void;
  /** Sends a message and resolves with its reply; rejects on an `ok: false` reply or after the timeout. */
  call<T extends RepliedType>(
    message: BridgeCall<Extract<BridgeRequest, { type: T }>>,
    timeoutMs?: number,
  ): Promise<BridgeReply<T> & { ok: true }>;
}

function correlationId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The bridge inside the app's webview, or null in a plain browser (no `ReactNativeWebView.postMessage`).
 * Replies are read from `message` events on the window in the capture phase: react-native-webview dispatches
 * them on `window` on iOS and on `document` on Android, and both paths pass the window while capturing.
 */
export function nativeBridge(target: BridgeWindow): NativeBridge | null {
  const webView = target.ReactNativeWebView;
  if (!webView || typeof webView.postMessage !== "function") return null;
  const send = (message: BridgeCall): string => {
    const id = correlationId();
    webView.postMessage(JSON.stringify({ v: BRIDGE_PROTOCOL_VERSION, id, ...message }));
    return id;
  };
  return {
    post(message) {
      send(message);
    },
    call(message, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        let id = "";
        const onMessage = (event: Event) => {
          const reply = parseBridgeReply((event as MessageEvent).data);
          if (!reply || reply.replyTo !== id || reply.type !== message.type) return;
          finish();
          if (reply.ok) resolve(reply as never);
          else reject(new Error(`native bridge ${message.type}: ${reply.error}`));
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`native bridge ${message.type}: no reply within ${timeoutMs} ms`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          target.removeEventListener("message", onMessage, true);
        };
        target.addEventListener("message", onMessage, true);
        id = send(message);
      });
    },
  };
}

/** Decodes a `mailto:` URL (RFC 6068: percent-encoding, `+` is literal) into a sendMail call. */
export function mailtoMessage(href: string): BridgeCall<SendMail> | null {
  if (!/^mailto:/i.test(href)) return null;
  const [addresses = "", query = ""] = href.slice("mailto:".length).split("?", 2);
  const decode = (text: string): string | null => {
    try {
      return decodeURIComponent(text);
    } catch {
      return null;
    }
  };
  const to = [decode(addresses)];
  let subject: string | undefined;
  let body: string | undefined;
  for (const field of query ? query.split("&") : []) {
    const at = field.indexOf("=");
    const name = (at < 0 ? field : field.slice(0, at)).toLowerCase();
    const value = decode(at < 0 ? "" : field.slice(at + 1));
    if (value === null) return null;
    if (name === "to") to.push(value);
    else if (name === "subject") subject = value;
    else if (name === "body") body = value;
  }
  if (to.some((address) => address === null)) return null;
  const joined = to.filter(Boolean).join(",");
  if (!joined) return null;
  return {
    type: "sendMail",
    to: joined,
    ...(subject !== undefined ? { subject } : {}),
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * What a click on a link becomes inside the app: `mailto:` → sendMail; an http(s) link to another origin,
 * or one with `target="_blank"`, → openExternalBrowser. Anything else (same-origin pages, `tel:`) stays a link.
 */
export function linkMessage(
  href: string,
  target: string,
  pageOrigin: string,
): BridgeCall<OpenExternalBrowser | SendMail> | null {
  if (/^mailto:/i.test(href)) return mailtoMessage(href);
  let url: URL;
  try {
    url = new URL(href, pageOrigin);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.origin === pageOrigin && target.toLowerCase() !== "_blank") return null;
  return { type: "openExternalBrowser", url: url.href };
}
