import { useEffect, useState } from "react";
import { passwordContext } from "../forms/passwordContext";
import { listedInRange, RANGE_PREFIX_LENGTH, sha1Hex } from "../forms/pwnedRange";
import { runRule } from "../forms/rules";
import { type ChosenPasswordProps, Field } from "./Field";
import { fieldId } from "./FieldFrame";

/**
 * Whether the list of passwords leaked elsewhere has this one (docs/security.md, "Leaked passwords"): only its
 * SHA-1's first five hex digits leave the page, to the site's own range endpoint. False when that cannot tell (no
 * answer, the check off): the form's POST checks again.
 */
async function leaked(password: string): Promise<boolean> {
  try {
    const hash = await sha1Hex(password);
    const response = await fetch(`/password/range/${hash.slice(0, RANGE_PREFIX_LENGTH)}`);
    return response.status === 200 && listedInRange(await response.text(), hash.slice(RANGE_PREFIX_LENGTH)) === true;
  } catch {
    return false;
  }
}

type Verdict = { value: string; listed: boolean };

/**
 * NIST SP 800-63B-4 §3.1.1.2 where a password is chosen (`context`): the context words of the shared rules on every
 * keystroke, and the leaked list once the field is left or its form submitted, never per key. A submit waits for
 * the list's answer, then goes on unless the password is listed; the field then says why.
 */
function useChosenPassword(props: ChosenPasswordProps) {
  const { preset, passwordRules, context } = props;
  const [verdict, setVerdict] = useState<Verdict>();
  useEffect(() => {
    const input = document.getElementById(fieldId(preset)) as HTMLInputElement | null;
    const form = input?.form;
    if (!context || !input || !form) return;
    let known: Verdict | undefined;
    let asking: { value: string; listed: Promise<boolean> } | undefined;
    const ask = (value: string) => {
      if (asking?.value !== value)
        asking = {
          value,
          listed: leaked(value).then((listed) => {
            known = { value, listed };
            setVerdict(known);
            return listed;
          }),
        };
      return asking.listed;
    };
    const eligible = (value: string) =>
      runRule(preset.rule, value, { passwordRules }) === null && passwordContext(value, context) === null;
    const listening = new AbortController();
    const { signal } = listening;
    input.addEventListener("blur", () => eligible(input.value) && ask(input.value), { signal });
    form.addEventListener(
      "submit",
      (event) => {
        const { value } = input;
        if (known?.value === value) {
          if (known.listed) event.preventDefault();
          return;
        }
        if (!eligible(value)) return;
        event.preventDefault();
        void ask(value).then((listed) => {
          if (listed || input.value !== value) return;
          // iOS 15.4 has no requestSubmit (docs/browsers.md): the forms' buttons post no value of their own.
          if (form.requestSubmit) form.requestSubmit(event.submitter);
          else form.submit();
        });
      },
      { signal },
    );
    return () => listening.abort();
  }, [preset, passwordRules, context]);
  return (
    context &&
    ((value: string) =>
      passwordContext(value, context) ?? (verdict?.value === value && verdict.listed ? "password.leaked" : null))
  );
}

/**
 * The PasswordField island where a password is chosen, in the browser (registry.ts): the server's Field with the
 * checks above. Only the browser loads them; the worker renders Field alone, the same markup.
 */
export default function ChosenPassword(props: ChosenPasswordProps) {
  return <Field {...props} refine={useChosenPassword(props)} />;
}
