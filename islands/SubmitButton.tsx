import { useEffect, useRef, useState } from "react";
import { type ButtonLabel, buttonLabels } from "../messages/ja";
import { island, VALIDITY_EVENT } from "./host";

export interface SubmitButtonProps {
  label: ButtonLabel;
  /** Several submit buttons in one form post different actions. */
  name?: string;
  value?: string;
}

/** SPEC §5: the submit button is disabled while any field is invalid; without script it stays enabled. */
function SubmitButton({ label, name, value }: SubmitButtonProps) {
  const ref = useRef<HTMLButtonElement>(null);
  const [valid, setValid] = useState(true);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    const update = () => setValid(form.checkValidity());
    form.addEventListener("input", update);
    form.addEventListener(VALIDITY_EVENT, update);
    update();
    return () => {
      form.removeEventListener("input", update);
      form.removeEventListener(VALIDITY_EVENT, update);
    };
  }, []);
  return (
    <button ref={ref} type="submit" className="button" name={name} value={value} disabled={!valid}>
      {buttonLabels[label]}
    </button>
  );
}

export default island("SubmitButton", SubmitButton);
