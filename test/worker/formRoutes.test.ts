import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { routeTable } from "../../worker/routes";
import { screenCases } from "../support/screens";
import { openScreen } from "./helpers";

// Every form on every screen posts to a route of the one route table (ARCHITECTURE §2). The POSTs below are
// the account journeys' (e-mail and password changes, second-factor setup): until they land,
// their forms are listed here, and the test fails as soon as one of them gets a route, so the list only shrinks.
// It must be empty when those journeys land.
const PENDING_POSTS: string[] = [];

const brand = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };

function pattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+")}$`);
}

/** The page route of the table that answers a POST to this path (the proxy and the not-found row aside). */
function postRouteFor(path: string) {
  return routeTable.find(
    (route) => route.method === "POST" && route.surface === "page" && pattern(route.path).test(path),
  );
}

function forms(html: string): Array<{ method: string; action: string }> {
  const own = [...html.matchAll(/<form\b([^>]*)>/g)].map(([, attributes = ""]) => ({
    method: /\smethod="([^"]*)"/.exec(attributes)?.[1] ?? "get",
    action: (/\saction="([^"]*)"/.exec(attributes)?.[1] ?? "").replace(/&amp;/g, "&"),
  }));
  // A button may post its form elsewhere (formaction): that target needs a route too.
  const buttons = [...html.matchAll(/<button\b[^>]*\sformaction="([^"]*)"/g)].map(([, action = ""]) => ({
    method: "post",
    action: action.replace(/&amp;/g, "&"),
  }));
  return [...own, ...buttons];
}

describe("every form posts to a route of the route table", () => {
  const seenPending = new Set<string>();
  const cases = screenCases(brand).map((screen) => [screen.name, screen] as const);

  it.each(cases)("%s", async (_name, screen) => {
    const html = await (await openScreen(screen, brand)).text();
    for (const form of forms(html)) {
      // Closable modals close with a dialog-method form; it never reaches the worker.
      if (form.method === "dialog") continue;
      expect(form.method, `a form on ${screen.name}`).toBe("post");
      const path = new URL(form.action, "https://site.test").pathname;
      const pending = PENDING_POSTS.find((pendingPath) => pattern(pendingPath).test(path));
      if (pending) {
        seenPending.add(pending);
        expect(postRouteFor(path), `${path} has a route now: take it off PENDING_POSTS`).toBeUndefined();
      } else {
        expect(postRouteFor(path), `${screen.name} posts to ${path}, which no route answers`).toBeDefined();
      }
    }
  });

  it("lists only forms that the screens really have", () => {
    expect([...seenPending].sort()).toEqual([...PENDING_POSTS].sort());
  });

  it("knows the difference between a route and no route (the check itself)", () => {
    expect(postRouteFor("/signIn")?.name).toBe("signIn");
    expect(postRouteFor("/gungnir-aurora/consent")?.name).toBe("consent");
    expect(postRouteFor("/no/such/form")).toBeUndefined();
  });
});
