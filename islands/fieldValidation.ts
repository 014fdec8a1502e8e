import { useEffect, useRef, useState } from "react";
import type { FieldPreset } from "../forms/fields";
import { BLANK, type PasswordRules, type RuleOutcome, runRule } from "../forms/rules";
import type { FieldMessageKey } from "../messages/ja";
import { VALIDITY_EVENT } from "./host";

/**
 * What a field island gets from the server (pages/layout/Field.tsx): its preset, words included, and the words of
 * every message its rule can answer, so that no message module ships to the browser (island bytes are budgeted).
 */
export interface FieldProps {
  preset: FieldPreset;
  messages: Partial<Record<FieldMessageKey, string>>;
  value?: string;
  /** The worker's message for this field after a rejected POST, in words. */
  error?: string;
  /** The first field the worker refused, where the page has no modal: it takes the focus as the page loads. */
  autoFocus?: boolean;
  /** The brand's password rules (product §5), for password fields. */
  passwordRules?: PasswordRules;
}

/** A check after the field's rule passed (where a password is chosen: islands/ChosenPassword.tsx). */
export type Refine = (value: string) => RuleOutcome;

/**
 * Runs the field's rule on every keystroke (the same rule the worker runs on POST), keeps the input's
 * constraint validity in step, and says which message to show: the worker's until the user types.
 */
export function useFieldValidation(props: FieldProps & { refine?: Refine | undefined }) {
  const { preset } = props;
  const [value, setValue] = useState(props.value ?? "");
  const [dirty, setDirty] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const outcome = runRule(preset.rule, value, { passwordRules: props.passwordRules }) ?? props.refine?.(value) ?? null;
  const liveMessage = outcome && outcome !== BLANK ? (props.messages[outcome] ?? "") : "";
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
    // At hydration the input may hold what the user typed meanwhile, which the effect above is taking into state:
    // the rule's verdict on the server's value would call it invalid for one render (and disable the submit button
    // then). The render with the typed value sets its validity.
    if (!input || input.value !== value) return;
    input.setCustomValidity(outcome === null ? "" : liveMessage || " ");
    input.form?.dispatchEvent(new Event(VALIDITY_EVENT));
  }, [value, outcome, liveMessage]);

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
