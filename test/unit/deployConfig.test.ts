import { describe, expect, it } from "vitest";
import { type WranglerConfig, wranglerConfigs } from "./wranglerConfig";

// architecture §8: each environment is its own worker; production is never on workers.dev,
// and every environment has the same rate-limit classes.

const { production, staging, dev } = wranglerConfigs;

describe("wrangler.toml per environment", () => {
  it("gives each environment its own worker name, APP_ENV and route", () => {
    expect(production.name).toBe("signin-site");
    expect(staging.name).toBe("signin-site-stg");
    expect(dev.name).toBe("signin-site-dev");
    expect([production, staging, dev].map((config) => config.vars.APP_ENV)).toEqual(["prod", "stg", "dev"]);
    const pattern = (config: WranglerConfig) => (config.routes?.[0] as { pattern: string } | undefined)?.pattern;
    expect(pattern(production)).toBe("signin.kazahana-sec.example");
    expect(pattern(staging)).toBe("signin.stg.kazahana-sec.example");
    expect(staging.vars.IDENTITY_API_ORIGIN).not.toBe(production.vars.IDENTITY_API_ORIGIN);
  });

  it("keeps production and staging off workers.dev", () => {
    expect(production.workers_dev).toBe(false);
    expect(staging.workers_dev).toBe(false);
  });

  it("binds the same rate-limit classes everywhere, with production's per-subject limits", () => {
    const limits = (config: WranglerConfig) =>
      Object.fromEntries(
        config.ratelimits.map((binding: { name: string; simple: { limit: number } }) => [
          binding.name,
          binding.simple.limit,
        ]),
      );
    const [prod, local, stg] = [limits(production), limits(dev), limits(staging)];
    expect(Object.keys(local).sort()).toEqual(Object.keys(prod).sort());
    expect(stg).toEqual(prod);
    const perSubject = Object.keys(prod).filter((key) => key.endsWith("_BY_SUBJECT"));
    expect(perSubject.length, "no per-subject limit found").toBeGreaterThan(0);
    for (const name of perSubject) expect(local[name]).toBe(prod[name]);
  });

  it("counts staging in rate-limit namespaces of its own, never production's", () => {
    const namespaces = (config: WranglerConfig) =>
      config.ratelimits.map((binding: { namespace_id: string }) => binding.namespace_id);
    expect(namespaces(staging).filter((id: string) => namespaces(production).includes(id))).toEqual([]);
  });

  it("has no session key in production's or staging's configuration (it is a secret) and the emulator only in dev", () => {
    expect(production.vars.SESSION_KEYS).toBeUndefined();
    expect(staging.vars.SESSION_KEYS).toBeUndefined();
    expect(production.services ?? []).toEqual([]);
    expect(staging.services ?? []).toEqual([]);
    expect(dev.services?.map((service: { binding: string }) => service.binding)).toEqual(["IDENTITY"]);
  });
});
