import { type FieldPresetName, fieldPresets } from "../../forms/fields";
import PasswordField from "../../islands/PasswordField";
import TextField from "../../islands/TextField";
import { usePage } from "./PageContext";

/**
 * One form field of SPEC §3 by its preset, as an island: after a rejected POST it shows what the user typed
 * (never a password) and the worker's message, both read from the page's form state.
 */
export function Field({ preset, value, readOnly }: { preset: FieldPresetName; value?: string; readOnly?: boolean }) {
  const { brand, form } = usePage();
  const { name, type } = fieldPresets[preset];
  const error = form?.errors[name];
  if (type === "password") {
    return <PasswordField field={preset} passwordRules={brand.passwordRules} {...(error ? { error } : {})} />;
  }
  const shown = value ?? form?.values[name];
  return (
    <TextField
      field={preset}
      {...(shown !== undefined ? { value: shown } : {})}
      {...(error ? { error } : {})}
      {...(readOnly ? { readOnly } : {})}
    />
  );
}
