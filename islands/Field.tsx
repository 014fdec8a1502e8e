import { type PasswordRules, passwordChecklist } from "../forms/rules";
import { BaseField, type PasswordWords } from "./BaseField";
import type { FieldProps } from "./fieldValidation";

export type { PasswordWords };

/** SPEC §5's live checklist of the password's rules, under a field where a password is chosen. */
function Checklist({
  value,
  passwordRules,
  id,
  words,
}: {
  value: string;
  passwordRules?: PasswordRules | undefined;
  id: string;
  words: NonNullable<PasswordWords["checklist"]>;
}) {
  return (
    <div className="checklist" id={id}>
      <p className="checklist-title">{words.title}</p>
      <ul>
        {passwordChecklist(value, { passwordRules }).map(({ check, ok }) => (
          <li key={check} className="checklist-row" data-check={check} data-met={ok}>
            <span aria-hidden="true" className="checklist-mark">
              {ok ? words.markMet : words.markUnmet}
            </span>
            {words[check]}
            <span className="visually-hidden">{ok ? words.met : words.unmet}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * One form field of SPEC §3 (BaseField.tsx) with the checklist of SPEC §5 where a password is chosen. The server
 * renders every field with it, as the TextField or PasswordField island (hosts.ts); the browser loads this module
 * (import(), registry.ts) only for a field that shows the checklist, and hydrates every other field without it.
 */
export function Field(props: FieldProps & { words?: PasswordWords }) {
  const words = props.words?.checklist;
  return (
    <BaseField
      {...props}
      checklist={
        words && ((value, id) => <Checklist value={value} passwordRules={props.passwordRules} id={id} words={words} />)
      }
    />
  );
}

export default Field;
