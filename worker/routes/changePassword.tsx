import { z } from "zod/mini";
import { ChangePassword } from "../../pages/ChangePassword";
import { PASSKEYS_PATH } from "../../pages/Passkeys";
import { accountFailure, accountSubject } from "../flow/account";
import { passkeyPolicy } from "../flow/passkeys";
import { signedInScreen } from "../flow/signedIn";
import { ruleField } from "../formFields";
import { changePassword as changePasswordCall } from "../identity/client";
import { isInvalidInput } from "../identity/outcomes";
import { formStep } from "../routeKinds";
import { deviceId } from "../session/cookies";

// product §2 ChangePassword (view passwordChange, after /callback): current and new password, PATCH user/password
// with the bearer token of the tokens cookie. Without that cookie nothing is called (product §6): the
// parameter-problem modal, as on every signed-in screen. Change-password forms say only 'enter a correct
// password' (product §5), for a rule broken here, upstream, or a wrong current password alike.

export const changePassword = formStep({
  ...signedInScreen(<ChangePassword />),
  form: (rules) =>
    z.object({
      currentPassword: ruleField("passwordForChange", rules),
      newPassword: ruleField("passwordForChange", rules),
    }),
  subject: ({ state }) => accountSubject(state),
  // The tokens name the user by a hashed name alone: the context words are the brand's.
  chosenPassword: ({ form }) => ({ field: "newPassword", password: form.newPassword }),
  submit: async (c, { state, form, show }) => {
    const outcome = await changePasswordCall(c, state.accessToken, {
      password: form.currentPassword,
      newPassword: form.newPassword,
      deviceId: deviceId(c),
    });
    // product §2: a modal that cannot be closed, whose one way on is the service top; where the brand has passkeys, their
    // list, since a changed password leaves them as they were (docs/devices.md "A changed password").
    if (outcome.ok) {
      if (passkeyPolicy(c.env, c.get("brand")) === "off") return show({ modal: "passwordChanged" });
      return show({ modal: { key: "passwordChangedCheckPasskeys", href: PASSKEYS_PATH } });
    }
    if (outcome.problem.type === "invalid_password") {
      return show({ form: { values: {}, errors: { currentPassword: "password.incorrect" } }, status: 401 });
    }
    if (isInvalidInput(outcome)) {
      return show({ form: { values: {}, errors: { newPassword: "password.incorrect" } } });
    }
    return show(accountFailure(outcome));
  },
});
