import { type ReactNode, useEffect, useState } from "react";
import type { PasswordCheck } from "../messages/ja";
import { FieldFrame, fieldId, messageId } from "./FieldFrame";
import { type FieldProps, type Refine, useFieldValidation } from "./fieldValidation";
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

/**
 * One form field of product §3, after its preset: a text, e-mail, phone or code field; or a password with its show/hide
 * toggle and, where a password is chosen (`words.checklist`), what `checklist` renders for the value under the
 * field, with the id the input names, and the checks `refine` adds to the field's rule. Field.tsx gives it the
 * checklist of product §5; the browser's entry takes this field without one, for every field that shows none
 * (registry.ts), so that a page without a new password never fetches the checklist's code.
 */
export function BaseField(
  props: FieldProps & {
    words?: PasswordWords;
    checklist?: ((value: string, id: string) => ReactNode) | undefined;
    refine?: Refine | undefined;
  },
) {
  const { preset, value, message, inputRef, onChange } = useFieldValidation(props);
  const { words } = props;
  const [visible, setVisible] = useState(false);
  // The toggle stays hidden until hydration: without script it could not work.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const id = fieldId(preset);
  const checklistId = `${id}-checklist`;
  return (
    <FieldFrame preset={preset} message={message} after={props.checklist?.(value, checklistId)}>
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
        required
        // biome-ignore lint/a11y/noAutofocus: only the first field the server refused, on a page with no modal: where the user must act.
        autoFocus={props.autoFocus}
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
