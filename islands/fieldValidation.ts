import { useEffect, useRef, useState } from "react";
import { type FieldPreset, type FieldPresetName, fieldPresets } from "../forms/fields";
import { BLANK, type PasswordRules, runRule } from "../forms/rules";
import { type FieldMessageKey, fieldMessages } from "../messages/ja";
import { VALIDITY_EVENT } from "./host";

/** What a field island gets from the server: data only; its words come from the preset and the message module. */
export interface FieldProps {
  field: FieldPresetName;
  value?: string;
  /** The worker's message for this field after a rejected POST. */
  error?: FieldMessageKey;
  readOnly?: boolean;
  /** The brand's password rules (SPEC §5), for password fields. */
  passwordRules?: PasswordRules;
}

export function presetOf(props: FieldProps): FieldPreset {
  return fieldPresets[props.field];
}

/**
 * Runs the field's rule on every keystroke (the same rule the worker runs on POST), keeps the input's
 * constraint validity in step, and says which message to show: the worker's until the user types.
 */
export function useFieldValidation(props: FieldProps) {
  const preset = presetOf(props);
  const [value, setValue] = useState(props.value ?? "");
  const [dirty, setDirty] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const outcome = props.readOnly ? null : runRule(preset.rule, value, { passwordRules: props.passwordRules });
  const liveMessage = outcome && outcome !== BLANK ? fieldMessages[outcome] : "";
  const message = dirty ? liveMessage : props.error ? fieldMessages[props.error] : "";

  // What the user typed before hydration stays: the state takes the input's value rather than the reverse.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, at hydration, against the server's value.
  useEffect(() => {
    const typed = inputRef.current?.value;
    if (typed !== undefined && typed !== (props.value ?? "")) {
      setValue(typed);
      setDirty(true);
    }
  }, []);

  useEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    input.setCustomValidity(outcome === null ? "" : liveMessage || " ");
    input.form?.dispatchEvent(new Event(VALIDITY_EVENT));
  }, [outcome, liveMessage]);

  return {
    preset,
    value,
    message,
    inputRef,
    onChange(next: string) {
      setValue(next);
      setDirty(true);
    },
  };
}
