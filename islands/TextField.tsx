import { FieldFrame, messageId } from "./FieldFrame";
import { type FieldProps, useFieldValidation } from "./fieldValidation";
import { island } from "./host";

function TextField(props: FieldProps) {
  const { preset, value, message, inputRef, onChange } = useFieldValidation(props);
  return (
    <FieldFrame preset={preset} message={message}>
      <input
        ref={inputRef}
        id={`field-${preset.name}`}
        className="field-input"
        name={preset.name}
        type={preset.type}
        autoComplete={preset.autoComplete}
        inputMode={preset.inputMode}
        placeholder={preset.placeholder}
        maxLength={preset.maxLength}
        required={!props.readOnly}
        readOnly={props.readOnly}
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={messageId(preset)}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    </FieldFrame>
  );
}

export default island("TextField", TextField);
