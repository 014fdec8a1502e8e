import { type FieldPreset, type FieldPresetName, fieldPresets } from "../../forms/fields";
import { brandPasswordWords, chosenPasswordMessageKeys } from "../../forms/passwordContext";
import { ruleMessageKeys } from "../../forms/rules";
import type { PasswordWords } from "../../islands/Field";
import { PasswordField, TextField } from "../../islands/hosts";
import { common, fieldMessages, passwordChecklistLabels } from "../../messages/ja";
import { usePage } from "./PageContext";

/**
 * The words of every message the preset's rule can answer, and where a password is chosen those of its context words
 * and the leaked list: what the island shows while the user types.
 */
function ruleMessages(preset: FieldPreset) {
  const keys = [...ruleMessageKeys[preset.rule], ...(preset.checklist ? chosenPasswordMessageKeys : [])];
  return Object.fromEntries(keys.map((key) => [key, fieldMessages[key]]));
}

const checklistWords: PasswordWords["checklist"] = {
  title: common.passwordChecklistTitle,
  met: common.checklistMet,
  unmet: common.checklistUnmet,
  markMet: common.checklistMarkMet,
  markUnmet: common.checklistMarkUnmet,
  ...passwordChecklistLabels,
};

function passwordWords(preset: FieldPreset): PasswordWords {
  return {
    show: common.showPassword,
    hide: common.hidePassword,
    ...(preset.checklist ? { checklist: checklistWords } : {}),
  };
}

/**
 * One form field of product §3 by its preset, as an island: after a rejected POST it shows what the user typed
 * (never a password) and the worker's message, both read from the page's form state. The island is given its
 * words here, so that the browser gets the rules but no message module. Where a password is chosen, `identities`
 * are whom it is for (the login ID, the e-mail address), which it must not be (forms/rules.ts `passwordContext`).
 */
export function Field({
  preset,
  value,
  identities,
}: {
  preset: FieldPresetName;
  value?: string;
  identities?: string[];
}) {
  const { brand, form, modal } = usePage();
  const shape: FieldPreset = fieldPresets[preset];
  const errorKey = form?.errors[shape.name];
  // The worker lists a refusal's fields in the form's order; an open modal takes the focus instead.
  const focused = errorKey !== undefined && !modal && Object.keys(form?.errors ?? {})[0] === shape.name;
  const shared = {
    preset: shape,
    messages: ruleMessages(shape),
    ...(errorKey ? { error: fieldMessages[errorKey] } : {}),
    ...(focused ? { autoFocus: true } : {}),
  };
  if (shape.type === "password") {
    const context = shape.checklist ? { context: { identities, brandWords: brandPasswordWords(brand) } } : {};
    return <PasswordField {...shared} passwordRules={brand.passwordRules} words={passwordWords(shape)} {...context} />;
  }
  const shown = value ?? form?.values[shape.name];
  return <TextField {...shared} {...(shown !== undefined ? { value: shown } : {})} />;
}
