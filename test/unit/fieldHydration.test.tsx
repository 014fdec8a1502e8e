// @vitest-environment jsdom
import { act } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fieldPresets } from "../../forms/fields";
import { ruleMessageKeys } from "../../forms/rules";
import { Field } from "../../islands/Field";
import { VALIDITY_EVENT } from "../../islands/host";
import { fieldMessages } from "../../messages/ja";

// A field hydrates on idle, so a user may have typed into it (or a test filled it) before its script ran. The value
// typed then is the field's value from the first moment: the field must never call it invalid meanwhile, or the
// form's submit button (islands/SubmitButton.tsx, which follows VALIDITY_EVENT) is disabled for a render and a click
// or an Enter in that moment is lost. That lost click was the e2e rate-limit test's "sixth second-factor code"
// failing on a loaded machine.

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

const preset = fieldPresets.mfaCode;
const props = {
  preset,
  messages: Object.fromEntries(ruleMessageKeys[preset.rule].map((key) => [key, fieldMessages[key]])),
};

/** The server's markup of the field in a form, `typed` into its input before hydration; answers the form. */
function serverRendered(typed: string): HTMLFormElement {
  const form = document.createElement("form");
  form.innerHTML = `<div id="host">${renderToString(<Field {...props} />)}</div>`;
  document.body.appendChild(form);
  form.querySelector("input")!.value = typed;
  return form;
}

describe("a field that hydrates after the user typed", () => {
  it("never calls a valid typed value invalid, not even for one render", async () => {
    const form = serverRendered("123456");
    const validities: string[] = [];
    const setCustomValidity = HTMLInputElement.prototype.setCustomValidity;
    vi.spyOn(HTMLInputElement.prototype, "setCustomValidity").mockImplementation(function (
      this: HTMLInputElement,
      message: string,
    ) {
      validities.push(message);
      setCustomValidity.call(this, message);
    });
    const formValidity: boolean[] = [];
    form.addEventListener(VALIDITY_EVENT, () => formValidity.push(form.checkValidity()));

    await act(async () => {
      hydrateRoot(form.querySelector("#host")!, <Field {...props} />);
    });

    expect(form.querySelector("input")!.value).toBe("123456");
    expect(validities).toEqual([""]);
    expect(formValidity).toEqual([true]);
  });

  it("still calls an invalid typed value invalid, with the rule's words", async () => {
    const form = serverRendered("12");
    await act(async () => {
      hydrateRoot(form.querySelector("#host")!, <Field {...props} />);
    });
    const input = form.querySelector("input")!;
    expect(input.validationMessage).toBe(fieldMessages["code.invalid"]);
    expect(form.checkValidity()).toBe(false);
    expect(form.querySelector(".field-message")!.textContent).toBe(fieldMessages["code.invalid"]);
  });
});
