import { z } from "zod/mini";
import { ChangeEmail } from "../../pages/ChangeEmail";
import { ChangeEmailResult, type ChangeEmailResultKind, changeEmailResults } from "../../pages/ChangeEmailResult";
import { brandById, clientIdsForBrand } from "../../themes/brands";
import type { AppContext } from "../context";
import { accountFailure, accountSubject } from "../flow/account";
import { forgetAuthRequest, mailLinkScreen } from "../flow/forgetAuthRequest";
import { signedInScreen } from "../flow/signedIn";
import { ruleField } from "../formFields";
import { followEmailChangeLink, requestEmailChange } from "../identity/client";
import { failure, isInvalidInput } from "../identity/outcomes";
import { allowedRedirect } from "../identity/redirects";
import { queryValue } from "../queryParams";
import { renderPage } from "../render";
import { formStep } from "../routeKinds";

// product §2/§4 change of e-mail (view emailChange, after /callback): PATCH user/email with the bearer token of the
// tokens cookie; the upstream mails the current address a link, that link mails the new address another, and
// each lands on the result page. Without the tokens cookie nothing is called (product §6): the parameter problem.

export const changeEmail = formStep({
  ...signedInScreen(<ChangeEmail />),
  form: () => z.object({ newEmail: ruleField("email") }),
  // The mail goes to the account's current address, so the account is whom the attempt is about.
  subject: ({ state }) => accountSubject(state),
  submit: async (c, { state, form, show }) => {
    const outcome = await requestEmailChange(c, state.accessToken, form.newEmail);
    if (outcome.ok) return show({ modal: "changeEmailSent" });
    if (outcome.problem.type === "already_registered") {
      return show({ form: { values: {}, errors: { newEmail: "email.taken" } }, status: 409 });
    }
    if (isInvalidInput(outcome)) {
      return show({ form: { values: {}, errors: { newEmail: "email.invalid" } } });
    }
    return show(accountFailure(outcome));
  },
});

/** product §2 ChangeEmailResult: where the confirmation mails' links land; without a known result there is nothing to show. */
export const changeEmailResult = mailLinkScreen(
  z.object({ client_id: queryValue, result: z.enum(changeEmailResults) }),
  (query) => <ChangeEmailResult result={query.result} />,
);

/** The query of the mailed links: the upstream's token and the client it was asked through. */
export const emailChangeLinkQuery = z.object({ token: queryValue, client_id: z.optional(queryValue) });

const isResult = (value: string | null): value is ChangeEmailResultKind =>
  (changeEmailResults as readonly (string | null)[]).includes(value);

/**
 * The result page the upstream's redirect names, rebuilt from brand data: a `/{serviceId}/changeEmail` of a known
 * brand on an allowed origin, with one of that brand's client ids and a known result. Only the result when the
 * page names no brand of ours; nothing when the redirect is not to an allowed origin or has no known result.
 */
function resultPagePath(c: AppContext, location: string): { path?: string; result?: ChangeEmailResultKind } {
  const url = allowedRedirect(c, new URL(location, c.req.url).toString());
  const result = url?.searchParams.get("result") ?? null;
  if (!url || !isResult(result)) return {};
  const brand = brandById(/^\/([^/]+)\/changeEmail$/.exec(url.pathname)?.[1] ?? "");
  const clientId = url.searchParams.get("client_id") ?? "";
  if (!brand || !clientIdsForBrand(brand.id).includes(clientId)) return { result };
  return { path: `/${brand.id}/changeEmail?${new URLSearchParams({ client_id: clientId, result })}`, result };
}

/**
 * product §7 GET user/email/confirm: the links the upstream mails point at the site's origin, and the site answers
 * them itself (not through the narrow proxy): it asks the upstream, which acts on the token, and follows the
 * upstream's redirect only to a result page built from brand data. An upstream that fails shows the result page's
 * error with its product §8 modal, never the upstream's own answer.
 */
export async function followChangeEmailLink(c: AppContext, query: z.infer<typeof emailChangeLinkQuery>) {
  const outcome = await followEmailChangeLink(c, { token: query.token, clientId: query.client_id });
  const target = outcome.ok ? resultPagePath(c, outcome.data.location) : {};
  if (target.path) return c.redirect(target.path, 303);
  // As on the result page itself (product §2): the link was opened outside any app's authorization.
  forgetAuthRequest(c);
  if (target.result) return renderPage(c, <ChangeEmailResult result={target.result} />);
  return renderPage(
    c,
    <ChangeEmailResult result="error" />,
    outcome.ok ? { modal: "unexpectedError" } : failure(outcome),
  );
}
