import type { PasswordContext } from "../forms/passwordContext";
import { type PasswordRules, passwordChecklist } from "../forms/rules";
import { BaseField, type PasswordWords } from "./BaseField";
import type { FieldProps, Refine } from "./fieldValidation";

export type { PasswordWords };

/** product §5's live checklist of the password's rules, under a field where a password is chosen. */
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

/** What a field where a password is chosen is given beyond a field's props. */
export type ChosenPasswordProps = FieldProps & {
  words?: PasswordWords;
  /** Whom the password is for and the brand's names (forms/rules.ts `passwordContext`). */
  context?: PasswordContext;
};

/**
 * One form field of product §3 (BaseField.tsx) with the checklist of product §5 where a password is chosen. The server
 * renders every field with it, as the TextField or PasswordField island (hosts.ts); the browser hydrates a field that
 * shows the checklist with ChosenPassword.tsx, which adds the checks of a chosen password (`context`) and loads this
 * module (import(), registry.ts), and every other field without it. The checks add no markup before the user types.
 */
export function Field(props: ChosenPasswordProps & { refine?: Refine | undefined }) {
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
