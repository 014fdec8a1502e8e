import { describe, expect, it } from "vitest";
import { screens } from "../../messages/ja";
import { routeTable } from "../../worker/routes";
import { screenCases } from "../support/screens";
import { GUNGNIR } from "../support/vocabulary";
import { openScreen, postForm } from "./helpers";

// Every form on every screen posts to a route of the one route table (ARCHITECTURE §2). Each screen is opened as
// a browser gets it and must render (its status and its text): a screen that broke would show no forms and prove
// nothing. A screen either posts at least one form or is named below as one without a form.

/** Screens that post no form: the parameter problems, the plain error pages and the result pages (a reset mail
 * sent, an e-mail change's outcome), whose only way on is a link. */
const WITHOUT_FORMS = new Set([
  "entry-parameter-error",
  "callback-parameter-error",
  "error",
  "not-found",
  "reset-password-send-mail",
  "change-email-result-sent",
  "change-email-result-completed",
  "change-email-result-invalid",
  "change-email-result-error",
]);

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
  const cases = screenCases(GUNGNIR).map((screen) => [screen.name, screen] as const);

  it("names only screens that exist as screens without forms", () => {
    const names = new Set(cases.map(([name]) => name));
    for (const name of WITHOUT_FORMS) expect(names.has(name), `${name} is no screen`).toBe(true);
  });

  it.each(cases)("%s", async (name, screen) => {
    const response = await openScreen(screen, GUNGNIR);
    expect(response.status, `${name} did not render`).toBe(screen.status);
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    const posted: string[] = [];
    for (const form of forms(html)) {
      // Closable modals close with a dialog-method form; it never reaches the worker.
      if (form.method === "dialog") continue;
      expect(form.method, `a form on ${name}`).toBe("post");
      const path = new URL(form.action, "https://site.test").pathname;
      expect(postRouteFor(path), `${name} posts to ${path}, which no route answers`).toBeDefined();
      posted.push(path);
    }
    if (WITHOUT_FORMS.has(name)) expect(posted, `${name} posts a form now: take it off WITHOUT_FORMS`).toEqual([]);
    else expect(posted.length, `${name} posts no form`).toBeGreaterThan(0);
    // And the site answers each of them: an empty form from a browser without the journey's cookies is refused by
    // the route itself, never answered by the not-found page.
    for (const path of new Set(posted)) {
      const answer = await postForm(path, {});
      const page = await answer.text();
      expect(answer.status, `POST ${path}`).not.toBe(404);
      expect(page, `POST ${path}`).not.toContain(screens.notFound.title);
    }
  });

  it("knows the difference between a route and no route (the check itself)", () => {
    expect(postRouteFor("/signIn")?.name).toBe("signIn");
    expect(postRouteFor("/gungnir-aurora/consent")?.name).toBe("consent");
    expect(postRouteFor("/no/such/form")).toBeUndefined();
  });
});
