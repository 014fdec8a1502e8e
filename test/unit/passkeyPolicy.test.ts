import { describe, expect, it } from "vitest";
import { passkeyPolicy } from "../../worker/flow/passkeys";
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
});
