import { brandPasswordWords, passwordContext } from "../../forms/passwordContext";
import type { FieldMessageKey } from "../../messages/ja";
import type { AppContext } from "../context";
import { isLeaked } from "../identity/pwnedPasswords";

/**
 * A password being chosen (sign-up, reset and initiation, change, the forced new password): the form field it is in,
 * and whom it is for where the step knows (the login ID, the e-mail address). A form step names it
 * (`FormStep.chosenPassword`, worker/routeKinds.tsx) and the password is checked before the step's submit.
 */
export interface ChosenPassword {
  field: string;
  password: string;
  identities?: readonly (string | undefined)[];
}

/**
 * NIST SP 800-63B-4 §3.1.1.2, after the field's product §5 rule: the context words of the shared rules (forms/rules.ts,
 * as the island runs them), then the list of passwords leaked elsewhere. The message key of a refusal, else undefined.
 */
export async function refusedPassword(
  c: AppContext,
  { password, identities }: ChosenPassword,
): Promise<FieldMessageKey | undefined> {
  const context = passwordContext(password, { identities, brandWords: brandPasswordWords(c.get("brand")) });
  if (context) return context;
  return (await isLeaked(c, password)) ? "password.leaked" : undefined;
}
