import { useEffect, useState } from "react";
import { type PasswordCheck, passwordChecklist } from "../forms/rules";
import { describedBy, FieldFrame } from "./FieldFrame";
import { type FieldProps, useFieldValidation } from "./fieldValidation";
import { island } from "./host";
import { EyeIcon, EyeOffIcon } from "./icons";

export interface PasswordFieldProps extends FieldProps {
  type: "password";
  toggleLabels: { show: string; hide: string };
  /** Present on forms that set a new password: the live checklist of SPEC §5. */
  checklist?: { title: string; met: string; unmet: string; labels: Record<PasswordCheck, string> };
}

function Checklist({
  value,
  serviceId,
  checklist,
  id,
}: {
  value: string;
  serviceId?: string | undefined;
  checklist: NonNullable<PasswordFieldProps["checklist"]>;
  id: string;
}) {
  return (
    <div className="checklist" id={id}>
      <p className="checklist-title">{checklist.title}</p>
      <ul>
        {passwordChecklist(value, { serviceId }).map(({ check, ok }) => (
          <li
            key={check}
            className={ok ? "checklist-row checklist-row--met" : "checklist-row"}
            data-check={check}
            data-met={ok}
          >
            <span aria-hidden="true" className="checklist-mark">
              {ok ? "✓" : "・"}
            </span>
            {checklist.labels[check]}
            <span className="visually-hidden">（{ok ? checklist.met : checklist.unmet}）</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function PasswordField(props: PasswordFieldProps) {
  const { value, message, inputRef, onChange } = useFieldValidation(props);
  const [visible, setVisible] = useState(false);
  // The toggle stays hidden until hydration: without script it could not work.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const checklistId = `field-${props.name}-checklist`;
  return (
    <FieldFrame
      props={props}
      message={message}
      after={
        props.checklist ? (
          <Checklist value={value} serviceId={props.serviceId} checklist={props.checklist} id={checklistId} />
        ) : null
      }
    >
      <input
        ref={inputRef}
        id={`field-${props.name}`}
        className="field-input"
        name={props.name}
        type={visible ? "text" : "password"}
        autoComplete={props.autoComplete}
        maxLength={props.maxLength ?? 256}
        required
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={[describedBy(props), props.checklist ? checklistId : ""].filter(Boolean).join(" ")}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      <button
        type="button"
        className="password-toggle"
        hidden={!hydrated}
        aria-pressed={visible}
        aria-label={visible ? props.toggleLabels.hide : props.toggleLabels.show}
        aria-controls={`field-${props.name}`}
        onClick={() => setVisible((shown) => !shown)}
      >
        {visible ? <EyeOffIcon /> : <EyeIcon />}
      </button>
    </FieldFrame>
  );
}

export default island("PasswordField", PasswordField);
