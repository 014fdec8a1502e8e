import type { View } from "../../worker/session/authRequest";
import { type AppBrand, appStart } from "../support/appStart";
import { CookieJar } from "../support/cookieJar";
import { formPost } from "../support/forms";
import { clientIp, ORIGIN, type SiteFetchOptions, siteFetch } from "./helpers";

/**
 * A tiny browser for journeys inside workerd: keeps the cookies the site and the emulator set and follows
 * redirects while they stay on the site's origin.
 */
export class Journey {
  private readonly jar = new CookieJar();
  /** One browser, one client address (the per-IP rate limits count it). */
  readonly ip = clientIp();

  cookieHeader(path: string): string {
    return this.jar.header(path);
  }

  has(name: string): boolean {
    return this.jar.has(name);
  }

  /** A cookie this browser's own script set (document.cookie), as a Set-Cookie line. */
  setCookie(line: string): void {
    this.jar.remember(new Response(null, { headers: { "Set-Cookie": line } }));
  }

  /** One request of this browser; `options` are for this request only (e.g. `SHORT_TIMEOUT`). */
  async request(target: string, init: RequestInit = {}, options?: SiteFetchOptions): Promise<Response> {
    const url = new URL(target, ORIGIN);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url.pathname);
    if (cookie) headers.set("Cookie", cookie);
    if (init.method === "POST" && !headers.has("Origin")) headers.set("Origin", ORIGIN);
    if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", this.ip);
    const response = await siteFetch(url.toString(), { ...init, headers, redirect: "manual" }, options);
    this.jar.remember(response);
    return response;
  }

  postForm(path: string, form: Record<string, string>, options?: SiteFetchOptions): Promise<Response> {
    return this.request(path, formPost(form), options);
  }

  /**
   * Sends a form of `page` as an engine without Fetch Metadata does (Safari < 16.4: no Sec-Fetch-Site), its Origin
   * as the page's Referrer-Policy makes it (Fetch, "serializing a request origin"): `null` under `no-referrer`.
   */
  submitFrom(page: Response, path: string, form: Record<string, string>): Promise<Response> {
    const origin = page.headers.get("Referrer-Policy") === "no-referrer" ? "null" : ORIGIN;
    return this.request(path, formPost(form, { Origin: origin }));
  }

  /** A JSON call as the app or an OAuth2 client makes it through the site's proxy. */
  postJson(path: string, body: unknown, options?: SiteFetchOptions): Promise<Response> {
    return this.request(
      path,
      {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json" },
      },
      options,
    );
  }

  /** Follows redirects on the site's origin; answers the last response, or the first foreign Location. */
  async follow(response: Response, limit = 10): Promise<{ response: Response; foreign?: URL }> {
    let current = response;
    for (let hop = 0; hop < limit && current.status >= 300 && current.status < 400; hop++) {
      const next = new URL(current.headers.get("Location") ?? "", ORIGIN);
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
  view: View,
): Promise<{ challenge: string; response: Response }> {
  const toOauth = await journey.request((await appStart(brand, view)).path);
  const toLogin = await journey.request(toOauth.headers.get("Location") ?? "");
  const loginUrl = new URL(toLogin.headers.get("Location") ?? "");
  const challenge = loginUrl.searchParams.get("login_challenge") ?? "";
  const { response } = await journey.follow(await journey.request(loginUrl.toString()));
  return { challenge, response };
}
