import type { RangeRequest } from "../../emulator/state/breachedPasswords";
import type { OutboxItem } from "../../emulator/state/outbox";
import { TEST_DEVICE_DIGEST } from "./testDevice";

// The emulator's developer endpoints (emulator/README.md), for every test layer: the workerd tests reach them
// through the site or the emulator worker itself, the browser tests over HTTP. Each layer gives its own fetch.

/** Answers a path of the site or the emulator (`/__emulator/…`), without following redirects. */
export type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** The password seeded users get unless a test says otherwise. */
export const PASSWORD = "Passw0rd!";

export interface SeedUser {
  email: string;
  password?: string;
  emailVerified?: boolean;
  confirmed?: boolean;
  mfa?: "none" | { totp: string } | { sms: string };
  forceChangePassword?: boolean;
  transferInProgress?: boolean;
  /** A passkey the account has (base64url id, COSE public key, user handle): emulator/routes/devEndpoints.ts. */
  passkey?: { id: string; publicKey: string; userHandle: string; counter?: number };
  /**
   * docs/devices.md: the device digests a completed login of the account came from. The test device (testDevice.ts)
   * unless a test says otherwise: `[]` makes every browser a new device to the account.
   */
  knownDevices?: string[];
  /** false: the account is held to no devices contract (a site whose DEVICE_CONFIRMATION is off); true unless said. */
  deviceContract?: boolean;
}

/** The seeded account's state, as `GET /__emulator/users/:emailOrUsername` reads it out. */
export interface SeededUser {
  username: string;
  email: string;
  forceChangePassword: boolean;
  failedAttempts: number;
  lockedUntil: string | null;
}

export interface Fault {
  /** The call's method; POST unless given. */
  method?: string;
  pathPattern: string;
  /** Only calls whose body includes this text. */
  bodyIncludes?: string;
  /** With a 3xx status: the redirect's target. */
  location?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  /** The call waits until `release()` (at most a minute). */
  held?: true;
  malformed?: boolean;
  drop?: boolean;
  /** How many matching calls get it; one unless given. */
  times?: number;
}

export function emulatorClient(fetcher: Fetcher) {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetcher(`/__emulator${path}`, init);
    if (response.status >= 400) throw new Error(`emulator ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  const send = (path: string, body: unknown, method = "POST") =>
    call(path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const outbox = async (to: string): Promise<OutboxItem[]> =>
    (await call(`/outbox?to=${encodeURIComponent(to)}`)).json();
  const latest = async (to: string): Promise<OutboxItem> => {
    const [item] = await outbox(to);
    if (!item) throw new Error(`no mail or SMS to ${to}`);
    return item;
  };
  return {
    reset: () => call("/reset", { method: "POST" }),
    /**
     * Seeds a user (verified, with PASSWORD, the test device known, unless the test says otherwise); answers its
     * username.
     */
    async seed(user: SeedUser): Promise<string> {
      const seeded = { password: PASSWORD, emailVerified: true, knownDevices: [TEST_DEVICE_DIGEST], ...user };
      const response = await send("/users", seeded);
      return ((await response.json()) as { username: string }).username;
    },
    /** The account as the emulator reads it out (emulator/README.md, `GET /__emulator/users/:emailOrUsername`). */
    async user(loginId: string): Promise<SeededUser> {
      return (await call(`/users/${encodeURIComponent(loginId)}`)).json();
    },
    /** The next matching upstream call gets the injected answer. */
    fault: (fault: Fault) => send("/faults", { method: "POST", times: 1, ...fault }),
    clearFaults: () => call("/faults", { method: "DELETE" }),
    /** Lets the calls a `held` fault holds go on; answers how many there were. */
    async release(): Promise<number> {
      return ((await (await call("/faults/release", { method: "POST" })).json()) as { released: number }).released;
    },
    clock: (offsetMs: number) => send("/clock", { offsetMs }),
    outbox,
    latest,
    /** The mails and SMS to `to` that carry a code or a link, newest first: the notices (docs/devices.md) carry none. */
    async actionable(to: string): Promise<OutboxItem[]> {
      return (await outbox(to)).filter((item) => item.code || item.link);
    },
    /** The newest link mailed to `to` (notices carry none). */
    async latestLink(to: string): Promise<string> {
      const link = (await outbox(to)).find((item) => item.link)?.link;
      if (!link) throw new Error(`no mail to ${to} has a link`);
      return link;
    },
    /** The newest 6-digit code sent to `to`: notices that carry none (docs/devices.md, "Notices") are passed over. */
    async latestCode(to: string): Promise<string> {
      const code = (await outbox(to)).find((item) => item.code && /^\d{6}$/.test(item.code))?.code;
      if (!code) throw new Error(`no message to ${to} has a 6-digit code`);
      return code;
    },
    async count(to: string): Promise<number> {
      return (await outbox(to)).length;
    },
    /** Adds a password to the range API's list of leaked passwords; answers its SHA-1's five-digit prefix. */
    async leakPassword(password: string): Promise<string> {
      return ((await (await send("/breached-passwords", { password })).json()) as { prefix: string }).prefix;
    },
    /** Every range request the emulator received since its reset (path and query, headers, body size). */
    rangeRequests: async (): Promise<RangeRequest[]> => (await call("/range-requests")).json(),
  };
}

export type EmulatorClient = ReturnType<typeof emulatorClient>;
