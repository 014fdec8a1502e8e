import { TOTP } from "otpauth";
import { type AppBrand, appStart } from "../../test/support/appStart";
import { CookieJar } from "../../test/support/cookieJar";
import { devSessionKeys } from "../../test/support/devKeys";
import { emulatorClient } from "../../test/support/emulatorClient";
import { testDeviceCookie } from "../../test/support/testDevice";
import { TOTP_SECRET } from "../../test/support/vocabulary";

// Load on the whole sign-in journey (entry → login POST → MFA POST → callback, to the app's code) on the
// local workerd with the emulator, many browsers at once. Each browser is a loop with its own cookies and client
// address; each journey signs in a user of its own (seeded first, not timed), so no code is replayed.

export const JOURNEY_STEPS = ["entry", "login", "mfa", "callback"] as const;
export type JourneyStep = (typeof JOURNEY_STEPS)[number];

export interface JourneyLoad {
  journeys: number;
  seconds: number;
  errors: number;
  firstError?: string;
  /** Milliseconds per step, sorted. */
  steps: Record<JourneyStep, number[]>;
}

const PASSWORD = "Passw0rd!";

class Browser {
  private readonly jar = new CookieJar();
  constructor(
    private readonly baseUrl: string,
    private readonly address: string,
  ) {}

  async request(target: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(target, this.baseUrl);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url.pathname);
    if (cookie) headers.set("Cookie", cookie);
    headers.set("CF-Connecting-IP", this.address);
    if (init.method === "POST") headers.set("Origin", this.baseUrl);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.jar.remember(response);
    await response.arrayBuffer();
    return response;
  }

  /** A cookie the browser holds from before (a Set-Cookie line): the test device's credential. */
  hold(setCookie: string): void {
    this.jar.remember(new Response(null, { headers: { "Set-Cookie": setCookie } }));
  }

  post(path: string, form: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: "POST",
      body: new URLSearchParams(form),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
  }

  /** Follows redirects on the site's origin; answers the last answer's status and the first foreign Location. */
  async follow(first: Response): Promise<{ status: number; foreign?: URL; at: string }> {
    let current = first;
    let at = "";
    for (let hop = 0; hop < 10 && current.status >= 300 && current.status < 400; hop++) {
      const next = new URL(current.headers.get("Location") ?? "", this.baseUrl);
      if (next.origin !== new URL(this.baseUrl).origin) return { status: current.status, foreign: next, at };
      at = next.pathname;
      current = await this.request(next.toString());
    }
    return { status: current.status, at };
  }
}

async function timed<T>(record: number[], run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  record.push(performance.now() - started);
  return result;
}

/** Runs `connections` browsers through the journey for `seconds`; answers journeys, errors and step latencies. */
export async function journeyLoad(
  baseUrl: string,
  brand: AppBrand,
  seconds: number,
  connections: number,
): Promise<JourneyLoad> {
  const idp = emulatorClient((path, init) => fetch(`${baseUrl}${path}`, { ...init, redirect: "manual" }));
  const steps = Object.fromEntries(JOURNEY_STEPS.map((step) => [step, [] as number[]])) as Record<
    JourneyStep,
    number[]
  >;
  const testDevice = testDeviceCookie(devSessionKeys());
  const until = Date.now() + seconds * 1000;
  let journeys = 0;
  let errors = 0;
  let firstError: string | undefined;
  let serial = 0;
  const fail = (what: string) => {
    errors++;
    firstError ??= what;
  };

  async function oneJourney(index: number): Promise<void> {
    const email = `load.${Date.now().toString(36)}.${index}.${serial++}@example.com`;
    await idp.seed({ email, password: PASSWORD, mfa: { totp: TOTP_SECRET } });
    const browser = new Browser(baseUrl, `198.19.${index}.${serial % 250}`);
    // The test device, which the seeded user knows: the journey is the one without a new device's confirmation.
    browser.hold(`${await testDevice}; Path=/; Secure; HttpOnly`);
    const start = await appStart(brand, "signIn");
    const signIn = await timed(steps.entry, async () => browser.follow(await browser.request(start.path)));
    // The app's start answers the sign-in screen itself: no redirect followed.
    if (signIn.status !== 200 || signIn.at !== "") return fail(`entry ended at ${signIn.at} ${signIn.status}`);
    const login = await timed(steps.login, () => browser.post("/signIn", { username: email, password: PASSWORD }));
    if (login.status !== 303 || login.headers.get("Location") !== "/signIn/mfa") return fail(`login ${login.status}`);
    const code = new TOTP({ secret: TOTP_SECRET }).generate();
    const toCallback = await timed(steps.mfa, async () => {
      const mfa = await browser.post("/signIn/mfa", { mfaCode: code });
      if (mfa.status !== 303) return { status: mfa.status, at: "/signIn/mfa", location: "" };
      const at = mfa.headers.get("Location") ?? "";
      const resumed = await browser.request(at);
      return { status: resumed.status, at, location: resumed.headers.get("Location") ?? "" };
    });
    if (!toCallback.location.includes("/callback?")) return fail(`mfa ended at ${toCallback.at} ${toCallback.status}`);
    const atApp = await timed(steps.callback, async () => browser.follow(await browser.request(toCallback.location)));
    if (!atApp.foreign?.searchParams.get("code")) return fail(`callback ended at ${atApp.at} ${atApp.status}`);
    journeys++;
  }

  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      while (Date.now() < until) {
        try {
          await oneJourney(index);
        } catch (error) {
          fail(String(error));
        }
      }
    }),
  );
  for (const step of JOURNEY_STEPS) steps[step].sort((a, b) => a - b);
  return { journeys, seconds, errors, ...(firstError ? { firstError } : {}), steps };
}
