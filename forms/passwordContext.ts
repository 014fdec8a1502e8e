import type { FieldMessageKey } from "../messages/ja";

// Where a password is chosen, the checks beyond the field's rule (forms/rules.ts): the context words here, the
// leaked-password list in the worker. A module of its own so that only the pages where a password is chosen fetch it
// (islands/ChosenPassword.tsx's chunk), not every form page's script.

/**
 * NIST SP 800-63B-4 §3.1.1.2's context-specific words where a password is chosen: whom it is for (the login ID, the
 * e-mail address) and the brand's names. The leaked-password list is the worker's (worker/identity/pwnedPasswords.ts).
 */
export interface PasswordContext {
  /** The login ID or e-mail address the password is for, where the screen knows it. */
  identities?: readonly (string | undefined)[];
  /** brandPasswordWords() of the request's brand. */
  brandWords?: readonly string[];
}

/** What brand data has of a brand's names: its display and provider names, and its service id. */
export interface NamedBrand {
  id: string;
  displayName: string;
  providerName: string;
}

/**
 * The brand's names as a password may hold them. The names are Japanese, which the standard rules keep out of a
 * password anyway; their Latin form is the service id's words after the product line's (`gungnir-aurora`: aurora).
 */
export function brandPasswordWords(brand: NamedBrand): string[] {
  const [, ...own] = brand.id.split("-");
  return [brand.displayName, brand.providerName, ...own.filter((word) => word.length > 3)];
}

const folded = (text: string) => text.normalize("NFKC").toLowerCase();

/**
 * A password equal (NFKC, case-insensitively) to the login ID or to the address's local part, or holding one of the
 * brand's names, answers `password.context`. Run after the field's rule, where a password is chosen.
 */
export function passwordContext(value: string, ctx: PasswordContext): "password.context" | null {
  const password = folded(value);
  const sameAsIdentity = (ctx.identities ?? []).some((identity) => {
    const id = folded(identity?.trim() ?? "");
    return id !== "" && (password === id || password === id.split("@")[0]);
  });
  const namesBrand = (ctx.brandWords ?? []).some((word) => password.includes(folded(word)));
  return sameAsIdentity || namesBrand ? "password.context" : null;
}

/** The messages a field where a password is chosen adds to its rule's: the context words and the leaked list. */
export const chosenPasswordMessageKeys = ["password.context", "password.leaked"] as const satisfies FieldMessageKey[];
