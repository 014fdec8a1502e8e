// A browser's cookie store for tests that play the browser without one (workerd journeys): it keeps what the
// site and the emulator set, by name and path, and honours deletion.
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  /** The Cookie header a browser would send to this path. */
  header(path: string): string {
    return [...this.cookies.entries()]
      .filter(([, cookie]) => path.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ");
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  remember(response: Response): void {
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
}

/** The cookies a response sets, by name (each with its whole Set-Cookie line). */
export function setCookies(response: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    out.set(pair.slice(0, pair.indexOf("=")), line);
  }
  return out;
}
