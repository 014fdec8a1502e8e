import { describe, expect, it } from "vitest";
import { screenCases } from "../support/screens";
import { GUNGNIR } from "../support/vocabulary";
import { get, openScreen } from "./helpers";

// product §4 session guard: on every screen with session state (its route loads a sealed journey cookie), on no
// static result, link or error screen. Every screen of test/support/screens.ts must be listed here.
const guardedScreens: Record<string, boolean> = {
  "entry-parameter-error": false,
  "sign-up-check-email": true,
  "sign-up-input-password": true,
  "sign-up-confirm-mail": true,
  "sign-in": true,
  "sign-in-mfa-totp": true,
  "sign-in-mfa-sms": true,
  "sign-in-device": true,
  consent: true,
  "reset-password": false,
  "reset-password-send-mail": false,
  "forgot-password": false,
  "initiate-password": false,
  "register-email": true,
  "register-email-code-sent": true,
  "change-password": true,
  "change-password-forced": true,
  "change-email": true,
  "passkey-enrolment": true,
  passkeys: true,
  // Its forms carry no journey state: each acts on the account as the upstream has it now, whichever tab posts it.
  security: false,
  "change-email-result-sent": false,
  "change-email-result-completed": false,
  "change-email-result-invalid": false,
  "change-email-result-error": false,
  "mfa-setup": true,
  "mfa-setup-passkey-code": true,
  "mfa-setup-totp": true,
  "mfa-setup-sms": true,
  "mfa-setup-sms-warning": true,
  "mfa-setup-sms-code": true,
  "operation-confirmation": true,
  "callback-parameter-error": false,
  error: false,
  "not-found": false,
};

const cases = screenCases(GUNGNIR);

describe("session guard placement (product §4)", () => {
  it("has a decision for every screen", () => {
    expect(Object.keys(guardedScreens).sort()).toEqual(cases.map((screen) => screen.name).sort());
  });

  it.each(cases.map((screen) => [screen.name, screen] as const))("%s", async (name, screen) => {
    const response = await openScreen(screen, GUNGNIR);
    expect(response.status).toBe(screen.status);
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    expect(html.includes('data-island="SessionGuard"'), name).toBe(guardedScreens[name]);
  });

  it("is not on the parameter problem of a journey screen whose state is missing", async () => {
    const html = await (await get("/mfa/setup")).text();
    expect(html).toContain("パラメータに不備がありました");
    expect(html).not.toContain('data-island="SessionGuard"');
  });
});
