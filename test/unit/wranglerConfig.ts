import { resolve } from "node:path";
import { unstable_readConfig } from "wrangler";

const configPath = resolve(__dirname, "../../wrangler.toml");

/** wrangler.toml as wrangler reads it for each environment (an environment inherits no vars or bindings). */
export const wranglerConfigs = {
  production: unstable_readConfig({ config: configPath }),
  staging: unstable_readConfig({ config: configPath, env: "stg" }),
  dev: unstable_readConfig({ config: configPath, env: "dev" }),
};

export type WranglerConfig = (typeof wranglerConfigs)["production"];
