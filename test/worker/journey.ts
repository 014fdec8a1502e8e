import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { type AppBrand, appStart } from "../appStart";
import { ORIGIN } from "./helpers";

/**
 * A tiny browser for journeys inside workerd: keeps the cookies the site and the emulator set (by name and
 * path, honouring deletion) and follows redirects while they stay on the site's origin.
 */
export class Journey {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  cookieHeader(path: string): string {
    return [...this.cookies.entries()]
      .filter(([, cookie]) => path.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ");
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const path = attributes.find((a) => a.toLowerCase().startsWith("path="))?.slice(5) ?? "/";
      const maxAge = attributes.find((a) => a.toLowerCase().startsWith("max-age="));
      if (maxAge && Number(maxAge.slice(8)) <= 0) this.cookies.delete(name);
      else this.cookies.set(name, { value: pair.slice(at + 1), path });
    }
  }

  async request(target: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(target, ORIGIN);
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url.pathname);
    if (cookie) headers.set("Cookie", cookie);
    if (init.method === "POST" && !headers.has("Origin")) headers.set("Origin", ORIGIN);
    const response = await SELF.fetch(url.toString(), { ...init, headers, redirect: "manual" });
    this.remember(response);
    return response;
  }

  postForm(path: string, form: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: "POST",
      body: new URLSearchParams(form),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
  }

  postJson(path: string, body: unknown): Promise<Response> {
    return this.request(path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
  }

  /** Follows redirects on the site's origin; answers the last response, or the first foreign Location. */
  async follow(response: Response, limit = 10): Promise<{ response: Response; foreign?: URL }> {
    let current = response;
    for (let hop = 0; hop < limit && current.status >= 300 && current.status < 400; hop++) {
      const next = new URL(current.headers.get("Location")!, ORIGIN);
      await current.body?.cancel();
      if (next.origin !== ORIGIN) return { response: current, foreign: next };
      current = await this.request(next.toString());
    }
    return { response: current };
  }
}

/**
 * The app opens the site for `view`; the OAuth2 server sends the browser to its login URL, where the site
 * stores the challenge and lands on the sign-in or sign-up screen. Answers the challenge and that screen.
 */
export async function reachLoginScreen(
  journey: Journey,
  brand: AppBrand,
  view: string,
): Promise<{ challenge: string; response: Response }> {
  const toOauth = await journey.request((await appStart(brand, view)).path);
  const toLogin = await journey.request(toOauth.headers.get("Location")!);
  const loginUrl = new URL(toLogin.headers.get("Location")!);
  const challenge = loginUrl.searchParams.get("login_challenge")!;
  const { response } = await journey.follow(await journey.request(loginUrl.toString()));
  return { challenge, response };
}

export const PASSWORD = "Passw0rd!";

/** The emulator's developer endpoints, reached through the site as under `npm run dev`. */
export function emulatorDev() {
  const dev = new Journey();
  const outbox = async (to: string): Promise<Array<{ code?: string; link?: string }>> =>
    (await dev.request(`/__emulator/outbox?to=${encodeURIComponent(to)}`)).json();
  return {
    reset: () => dev.request("/__emulator/reset", { method: "POST" }),
    async seed(user: Record<string, unknown>) {
      expect(
        (await dev.postJson("/__emulator/users", { password: PASSWORD, emailVerified: true, ...user })).status,
      ).toBe(201);
    },
    /** The next call matching the fault's method (POST unless given) and path pattern gets the injected answer. */
    async fault(fault: { pathPattern: string } & Record<string, unknown>) {
      expect((await dev.postJson("/__emulator/faults", { method: "POST", times: 1, ...fault })).status).toBe(201);
    },
    clock: (offsetMs: number) => dev.postJson("/__emulator/clock", { offsetMs }),
    outbox,
    async latestCode(to: string): Promise<string> {
      const [mail] = await outbox(to);
      expect(mail?.code).toMatch(/^\d{6}$/);
      return mail!.code!;
    },
  };
}
