import { useEffect, useRef, useState } from "react";
import { BLANK, type FieldMessageKey, type FieldRuleName, runRule } from "../forms/rules";

/** Serialisable description of one form field, shared by the text and password islands. */
export interface FieldProps {
  name: string;
  label: string;
  type: "email" | "text" | "tel" | "password";
  autoComplete: string;
  inputMode?: "email" | "numeric" | "tel" | "text";
  rule?: FieldRuleName;
  serviceId?: string;
  icon?: "email" | "key";
  placeholder?: string;
  maxLength?: number;
  value?: string;
  /** The worker's message for this field after a rejected POST. */
  error?: string;
  readOnly?: boolean;
  hint?: string;
  /** Texts for the rule's message keys, passed in by the page from the catalogue. */
  messages?: Partial<Record<FieldMessageKey, string>>;
}

/** Fired on the form whenever a field's validity changes, so the submit island can follow it. */
export const VALIDITY_EVENT = "field-validity";

/**
 * Runs the field's rule on every keystroke (the same rule the worker runs on POST), keeps the input's
 * constraint validity in step, and says which message to show: the worker's until the user types.
 */
export function useFieldValidation(props: FieldProps) {
  const [value, setValue] = useState(props.value ?? "");
  const [dirty, setDirty] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const outcome = props.rule && !props.readOnly ? runRule(props.rule, value, { serviceId: props.serviceId }) : null;
  const liveMessage = outcome && outcome !== BLANK ? (props.messages?.[outcome] ?? "") : "";
  const message = dirty ? liveMessage : (props.error ?? "");

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
    value,
    message,
    inputRef,
    onChange(next: string) {
      setValue(next);
      setDirty(true);
    },
  };
}
