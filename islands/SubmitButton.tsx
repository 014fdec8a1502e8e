import { useEffect, useRef, useState } from "react";
import { VALIDITY_EVENT } from "./host";

export interface SubmitButtonProps {
  /** Its words, from messages/ja.ts `buttonLabels` on the server. */
  label: string;
  /** Several submit buttons in one form post different actions. */
  name?: string;
  value?: string;
  /** The SMS 'send code' button (the SmsSendButton island): the id of the warning popover whose button sends. */
  warning?: string;
}

/**
 * What the SMS 'send code' button does to its form (SmsSendButton.tsx, a chunk of its own): given the id of its
 * warning, it stops the form's submissions, and calls `setSending(true)` once the warning's button has sent.
 */
export type SendGuard = (
  form: HTMLFormElement,
  warning: string | undefined,
  setSending: (sending: boolean) => void,
  signal: AbortSignal,
) => void;

/**
 * product §5: the submit button is disabled while any field is invalid; without script it stays enabled. With a
 * `guard` (the SmsSendButton island, SmsSendButton.tsx), the guard of its form too; the server renders both islands
 * with this component alone.
 */
export function SubmitButton({ label, name, value, warning, guard }: SubmitButtonProps & { guard?: SendGuard }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [valid, setValid] = useState(true);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    const listening = new AbortController();
    const { signal } = listening;
    const update = () => setValid(form.checkValidity());
    form.addEventListener("input", update, { signal });
    form.addEventListener(VALIDITY_EVENT, update, { signal });
    guard?.(form, warning, setSending, signal);
    update();
    return () => listening.abort();
  }, [warning, guard]);
  return (
    <button ref={ref} type="submit" className="button" name={name} value={value} disabled={!valid || sending}>
      {label}
    </button>
  );
}
