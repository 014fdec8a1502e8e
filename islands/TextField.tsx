import { describedBy, FieldFrame } from "./FieldFrame";
import { type FieldProps, useFieldValidation } from "./fieldValidation";
import { island } from "./host";

function TextField(props: FieldProps) {
  const { value, message, inputRef, onChange } = useFieldValidation(props);
  return (
    <FieldFrame props={props} message={message}>
      <input
        ref={inputRef}
        id={`field-${props.name}`}
        className="field-input"
        name={props.name}
        type={props.type}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        maxLength={props.maxLength ?? 256}
        required={!props.readOnly}
        readOnly={props.readOnly}
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={describedBy(props)}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    </FieldFrame>
  );
}

export default island("TextField", TextField);
