import { describe, expect, it } from "vitest";
import { passkeyPolicy, passkeyRequired } from "../../worker/flow/passkeys";
import { wranglerConfigs } from "./wranglerConfig";

describe("the passkey switches (docs/passkeys.md)", () => {
  it("follows the brand's data while the environment's switch is on", () => {
    for (const passkeys of ["off", "offered", "required"] as const)
      expect(passkeyPolicy({ PASSKEYS: "on" }, { passkeys })).toBe(passkeys);
  });

  it("is off for every brand while the switch is off, unset or anything but on", () => {
    for (const PASSKEYS of ["off", undefined, "", "On", "true", "1", " on"])
      for (const passkeys of ["off", "offered", "required"] as const)
        expect(passkeyPolicy({ PASSKEYS }, { passkeys })).toBe("off");
  });

  it("is on in the dev environment (the emulator has the contract) and off in staging and production", () => {
    const switches = Object.fromEntries(
      Object.entries(wranglerConfigs).map(([environment, config]) => [environment, config.vars.PASSKEYS]),
    );
    expect(switches).toEqual({ production: "off", staging: "off", dev: "on" });
  });

  it("requires a passkey on a required brand, or where the app asks for phr or phrh, while passkeys are on", () => {
    const on = { PASSKEYS: "on" };
    const asking = (acr_values?: string) => ({ query: { acr_values } }) as never;
    expect(passkeyRequired(on, { passkeys: "required" }, undefined)).toBe(true);
    expect(passkeyRequired(on, { passkeys: "offered" }, undefined)).toBe(false);
    expect(passkeyRequired(on, { passkeys: "offered" }, asking("phr"))).toBe(true);
    expect(passkeyRequired(on, { passkeys: "offered" }, asking("phrh phr"))).toBe(true);
    expect(passkeyRequired(on, { passkeys: "offered" }, asking("mfa"))).toBe(false);
    expect(passkeyRequired(on, { passkeys: "offered" }, asking("xphr"))).toBe(false);
    // Where nothing could meet it, the login goes on and the app sees its acr.
    expect(passkeyRequired(on, { passkeys: "off" }, asking("phr"))).toBe(false);
    expect(passkeyRequired({ PASSKEYS: "off" }, { passkeys: "required" }, asking("phr"))).toBe(false);
  });
});
