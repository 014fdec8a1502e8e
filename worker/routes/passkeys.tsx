import { z } from "zod/mini";
import { authenticatorNames, screens } from "../../messages/ja";
import type { PasskeyRegistrationStage } from "../../pages/layout/PasskeyCreateForm";
import { canDelete, PASSKEYS_PATH, type PasskeyRow, Passkeys } from "../../pages/Passkeys";
import type { AppContext } from "../context";
import { accountFailure, accountSubject } from "../flow/account";
import {
  finishRegistration,
  logRegistration,
  newCredentialField,
  registrationFailure,
  registrationFor,
  showCodeRefusal,
  startRegistration,
} from "../flow/passkeyRegistration";
import { passkeyPolicy } from "../flow/passkeys";
import { recentlySignedIn, stepUp } from "../flow/recentSignIn";
import { freshTokens } from "../flow/tokens";
import { emptyForm, ruleField } from "../formFields";
import type { CallResult } from "../identity/client";
import { refusedAs } from "../identity/outcomes";
import {
  deletePasskey,
  listPasskeys,
  type Passkey,
  passkeyRegistrationCode,
  renamePasskey,
} from "../identity/passkeys";
import { bounded } from "../queryParams";
import { errorPage, parameterProblem, renderPage, type Show } from "../render";
import { formStep, type Refusal, type Screen, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed } from "../session/cookies";
import type { PasskeyRegistration, TokenState } from "../session/state";

// docs/passkeys.md "Managing passkeys" (view `passkeys`, after /callback): the signed-in user's passkeys, listed,
// renamed, deleted and added with the bearer token of the tokens cookie. The screen needs a sign-in within the last
// 5 minutes (the token's auth_time); an older one steps up first: the app's authorization again, as an own view,
// with prompt=login. Adding needs a code mailed to the account, as after a password sign-in.

const dateFormat = new Intl.DateTimeFormat("ja-JP", { timeZone: "Asia/Tokyo", dateStyle: "long" });
const shownDate = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : dateFormat.format(new Date(iso)));

function rowOf(passkey: Passkey): PasskeyRow {
  const provider = passkey.aaguid ? authenticatorNames[passkey.aaguid] : undefined;
  return {
    id: passkey.id,
    name: passkey.name || provider || screens.passkeys.defaultName,
    created: shownDate(passkey.created_at),
    lastUsed: passkey.last_used_at ? shownDate(passkey.last_used_at) : null,
    suspended: passkey.suspended ?? false,
  };
}

interface PasskeysState {
  tokens: TokenState;
  passkeys: Passkey[];
  owner: string;
  /** This user's ceremony, ready for the browser's credential. */
  registration: PasskeyRegistration | undefined;
}

/**
 * The screen at a stage: the user's passkeys from the upstream (its refusal or failure is the screen's modal, on
 * the error page) and where adding one stands (`create` whenever this user's ceremony is ready).
 */
async function loadPasskeys(
  c: AppContext,
  stage: PasskeyRegistrationStage,
  stored?: Promise<TokenState | undefined>,
): Promise<Screen<PasskeysState> | Refusal | undefined> {
  // While passkeys are off here, no passkey call is made (docs/passkeys.md, "Switches").
  if (passkeyPolicy(c.env, c.get("brand")) === "off") return undefined;
  const tokens = await freshTokens(c, stored);
  if (tokens === "absent") return undefined;
  if (tokens === "expired") return { refuse: { modal: "tokenExpired" } };
  const listed = await listPasskeys(c, tokens.accessToken);
  if (!listed.ok) return { refuse: accountFailure(listed) };
  const owner = accountSubject(tokens);
  const registration = await registrationFor(c, owner);
  const keepLast = passkeyPolicy(c.env, c.get("brand")) === "required";
  return {
    state: { tokens, passkeys: listed.data.credentials, owner, registration },
    page: (
      <Passkeys
        passkeys={listed.data.credentials.map(rowOf)}
        stage={registration ? "create" : stage}
        keepLast={keepLast}
      />
    ),
  };
}

const passkeysScreen =
  (stage: PasskeyRegistrationStage): ScreenLoader<PasskeysState> =>
  (c) =>
    loadPasskeys(c, stage);

export const passkeysQuery = z.object({ add: z.optional(z.literal("code")) });

/** GET /passkeys: the step-up first when the sign-in is not recent; 404 where passkeys are off. */
export async function showPasskeys(c: AppContext, query: z.infer<typeof passkeysQuery>): Promise<Response> {
  if (passkeyPolicy(c.env, c.get("brand")) === "off") return c.notFound();
  // The tokens cookie opened once: for the recency, then for the screen.
  const stored = readSealed(c, "tokens");
  const tokens = await stored;
  if (tokens && !recentlySignedIn(tokens)) return stepUp(c, "passkeys");
  const loaded = await loadPasskeys(c, query.add === "code" ? "code" : "start", stored);
  if (!loaded) return parameterProblem(c);
  return "page" in loaded ? renderPage(c, loaded.page) : errorPage(c, loaded.refuse);
}

type Submit<F> = (c: AppContext, input: { state: PasskeysState; form: F; show: Show }) => Promise<Response>;

/**
 * Every change on the screen needs a recent sign-in too: an older one (or the upstream saying so, 403
 * reauthentication_required) steps up instead.
 */
function whenRecent<F>(submit: Submit<F>): Submit<F> {
  return async (c, input) => {
    if (!recentlySignedIn(input.state.tokens)) return stepUp(c, "passkeys");
    return submit(c, input);
  };
}

const backToList = (c: AppContext, query = "") => c.redirect(`${PASSKEYS_PATH}${query}`, 303);
/** The upstream's 5-minute rule: the sign-in is too old to add or delete a passkey. */
const needsStepUp = (outcome: CallResult<unknown>) => refusedAs(outcome, "reauthentication_required");
/** A passkey the upstream does not know for this user (another's, or deleted meanwhile): try again, 404. */
const unknownPasskey = (outcome: CallResult<unknown>) => refusedAs(outcome, "not_found");

const passkeyId = bounded(1, 1364).check(z.regex(/^[A-Za-z0-9_-]+$/));
const subject = ({ state }: { state: PasskeysState }) => state.owner;

/** POST /passkeys/rename: the user's own name for one of their passkeys (1 to 64 characters, no control characters). */
export const renameStep = formStep({
  screen: passkeysScreen("start"),
  form: () =>
    z.object({
      id: passkeyId,
      name: z.string().check(z.trim(), z.minLength(1), z.maxLength(64), z.regex(/^\P{Cc}*$/u)),
    }),
  subject,
  submit: whenRecent(async (c, { state, form, show }) => {
    const outcome = await renamePasskey(c, state.tokens.accessToken, form.id, form.name);
    if (outcome.ok) return backToList(c);
    if (unknownPasskey(outcome)) return show({ modal: "retry", status: 404 });
    return show(accountFailure(outcome));
  }),
});

/** POST /passkeys/delete: mails the account; on a "required" brand the last passkey stays. */
export const deleteStep = formStep({
  screen: passkeysScreen("start"),
  form: () => z.object({ id: passkeyId }),
  subject,
  submit: whenRecent(async (c, { state, form, show }) => {
    if (!canDelete(passkeyPolicy(c.env, c.get("brand")) === "required", state.passkeys.length))
      return show({ modal: "passkeyLastOne" });
    const outcome = await deletePasskey(c, state.tokens.accessToken, form.id);
    if (outcome.ok) return backToList(c);
    if (needsStepUp(outcome)) return stepUp(c, "passkeys");
    if (unknownPasskey(outcome)) return show({ modal: "retry", status: 404 });
    return show(accountFailure(outcome));
  }),
});

/** POST /passkeys/add/code: the code mailed to the account that adding a passkey needs. */
export const addCodeStep = formStep({
  screen: passkeysScreen("start"),
  form: emptyForm,
  subject,
  submit: whenRecent(async (c, { state, show }) => {
    const outcome = await passkeyRegistrationCode(c, { bearer: state.tokens.accessToken });
    if (!outcome.ok) return show(accountFailure(outcome));
    // A new code spends the ceremony of the last one.
    clearSealed(c, "passkeyRegistration");
    return backToList(c, "?add=code");
  }),
});

/** POST /passkeys/add/verify: the mailed code opens the ceremony the island asks the browser to sign. */
export const addVerifyStep = formStep({
  screen: passkeysScreen("code"),
  form: () => z.object({ code: ruleField("code") }),
  subject,
  submit: whenRecent(async (c, { state, form, show }) => {
    const outcome = await startRegistration(c, { bearer: state.tokens.accessToken }, state.owner, form.code);
    if (outcome.ok) return backToList(c);
    if (needsStepUp(outcome)) return stepUp(c, "passkeys");
    const refused = showCodeRefusal(outcome, show);
    if (refused) return refused;
    return show(accountFailure(outcome));
  }),
});

/** POST /passkeys/add: the new credential; the list then shows it (and the account is mailed). */
export const addStep = formStep({
  screen: passkeysScreen("start"),
  form: () => z.object({ credential: newCredentialField }),
  subject,
  submit: whenRecent(async (c, { state, form }) => {
    const bearer = { bearer: state.tokens.accessToken };
    const outcome = await finishRegistration(c, bearer, state.registration, form.credential);
    if (outcome?.ok) {
      logRegistration(c, "passkeys");
      return backToList(c);
    }
    if (outcome && needsStepUp(outcome)) return stepUp(c, "passkeys");
    const keepLast = passkeyPolicy(c.env, c.get("brand")) === "required";
    const page = <Passkeys passkeys={state.passkeys.map(rowOf)} stage="code" keepLast={keepLast} />;
    return renderPage(c, page, registrationFailure(outcome));
  }),
});

export { registrationOptions } from "../flow/passkeyRegistration";
