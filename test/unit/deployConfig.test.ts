import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

// ARCHITECTURE §8 / issue 9 finding 8: each environment is its own worker; production is never on workers.dev,
// and every environment has the same rate-limit classes.

const configPath = resolve(__dirname, "../../wrangler.toml");
const production = unstable_readConfig({ config: configPath });
const dev = unstable_readConfig({ config: configPath, env: "dev" });

describe("wrangler.toml per environment", () => {
  it("gives each environment its own worker name", () => {
    expect(production.name).toBe("signin-site");
    expect(dev.name).not.toBe(production.name);
  });

  it("keeps production off workers.dev", () => {
    expect(production.workers_dev).toBe(false);
  });

  it("binds the same rate-limit classes everywhere, with production's per-subject limits", () => {
    const limits = (config: typeof production) =>
      Object.fromEntries(
        config.ratelimits.map((binding: { name: string; simple: { limit: number } }) => [
          binding.name,
          binding.simple.limit,
        ]),
      );
    const [prod, local] = [limits(production), limits(dev)];
    expect(Object.keys(local).sort()).toEqual(Object.keys(prod).sort());
    for (const name of Object.keys(prod).filter((key) => key.endsWith("_BY_SUBJECT")))
      expect(local[name]).toBe(prod[name]);
  });

  it("has no session key in production's configuration (it is a secret) and the emulator only in dev", () => {
    expect(production.vars.SESSION_KEYS).toBeUndefined();
    expect(production.services ?? []).toEqual([]);
    expect(dev.services?.map((service: { binding: string }) => service.binding)).toEqual(["IDENTITY"]);
  });
});
