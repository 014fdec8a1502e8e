import { useEffect, useState } from "react";
import { type PasswordRules, passwordChecklist } from "../forms/rules";
import type { PasswordCheck } from "../messages/ja";
import { FieldFrame, messageId } from "./FieldFrame";
import { type FieldProps, useFieldValidation } from "./fieldValidation";
import { Icon } from "./icons";

/** The toggle's and the checklist's words, from the server like a field's own (pages/layout/Field.tsx). */
export interface PasswordWords {
  show: string;
  hide: string;
  /** Present where a password is chosen (the preset's `checklist`). */
  checklist?: { title: string; met: string; unmet: string; markMet: string; markUnmet: string } & Record<
    PasswordCheck,
    string
  >;
}

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
 * One form field of SPEC §3, after its preset: a text, e-mail, phone or code field; or a password with its show/hide
 * toggle and, where a password is chosen, the live checklist of SPEC §5 (given `words`). The server renders it as
 * the TextField or PasswordField island (hosts.ts); one component, so the browser gets one field's code.
 */
export function Field(props: FieldProps & { words?: PasswordWords }) {
  const { preset, value, message, inputRef, onChange } = useFieldValidation(props);
  const { words } = props;
  const [visible, setVisible] = useState(false);
  // The toggle stays hidden until hydration: without script it could not work.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const id = `field-${preset.name}`;
  const checklistId = `${id}-checklist`;
  return (
    <FieldFrame
      preset={preset}
      message={message}
      after={
        words?.checklist ? (
          <Checklist value={value} passwordRules={props.passwordRules} id={checklistId} words={words.checklist} />
        ) : null
      }
    >
      <input
        ref={inputRef}
        id={id}
        className="field-input"
        name={preset.name}
        type={visible ? "text" : preset.type}
        autoComplete={preset.autoComplete}
        inputMode={preset.inputMode}
        placeholder={preset.placeholder}
        maxLength={preset.maxLength}
        required={!props.readOnly}
        readOnly={props.readOnly}
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={words?.checklist ? `${messageId(preset)} ${checklistId}` : messageId(preset)}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      {words ? (
        <button
          type="button"
          className="password-toggle"
          hidden={!hydrated}
          aria-pressed={visible}
          aria-label={visible ? words.hide : words.show}
          aria-controls={id}
          onClick={() => setVisible((shown) => !shown)}
        >
          <Icon name={visible ? "eyeOff" : "eye"} />
        </button>
      ) : null}
    </FieldFrame>
  );
}
