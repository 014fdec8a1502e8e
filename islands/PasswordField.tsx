import { useEffect, useState } from "react";
import { type PasswordRules, passwordChecklist } from "../forms/rules";
import { common, passwordChecklistLabels } from "../messages/ja";
import { FieldFrame, messageId } from "./FieldFrame";
import { type FieldProps, useFieldValidation } from "./fieldValidation";
import { island } from "./host";
import { EyeIcon, EyeOffIcon } from "./icons";

function Checklist({
  value,
  passwordRules,
  id,
}: {
  value: string;
  passwordRules?: PasswordRules | undefined;
  id: string;
}) {
  return (
    <div className="checklist" id={id}>
      <p className="checklist-title">{common.passwordChecklistTitle}</p>
      <ul>
        {passwordChecklist(value, { passwordRules }).map(({ check, ok }) => (
          <li
            key={check}
            className={ok ? "checklist-row checklist-row--met" : "checklist-row"}
            data-check={check}
            data-met={ok}
          >
            <span aria-hidden="true" className="checklist-mark">
              {ok ? common.checklistMarkMet : common.checklistMarkUnmet}
            </span>
            {passwordChecklistLabels[check]}
            <span className="visually-hidden">{ok ? common.checklistMet : common.checklistUnmet}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A password with its show/hide toggle and, where a password is chosen, the live checklist of SPEC §5. */
function PasswordField(props: FieldProps) {
  const { preset, value, message, inputRef, onChange } = useFieldValidation(props);
  const [visible, setVisible] = useState(false);
  // The toggle stays hidden until hydration: without script it could not work.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const checklistId = `field-${preset.name}-checklist`;
  return (
    <FieldFrame
      preset={preset}
      message={message}
      after={preset.checklist ? <Checklist value={value} passwordRules={props.passwordRules} id={checklistId} /> : null}
    >
      <input
        ref={inputRef}
        id={`field-${preset.name}`}
        className="field-input"
        name={preset.name}
        type={visible ? "text" : "password"}
        autoComplete={preset.autoComplete}
        maxLength={preset.maxLength}
        required
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={[messageId(preset), preset.checklist ? checklistId : ""].filter(Boolean).join(" ")}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      <button
        type="button"
        className="password-toggle"
        hidden={!hydrated}
        aria-pressed={visible}
        aria-label={visible ? common.hidePassword : common.showPassword}
        aria-controls={`field-${preset.name}`}
        onClick={() => setVisible((shown) => !shown)}
      >
        {visible ? <EyeOffIcon /> : <EyeIcon />}
      </button>
    </FieldFrame>
  );
}

export default island("PasswordField", PasswordField);
