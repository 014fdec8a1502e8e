import { defineConfig, mergeConfig, type UserConfig } from "vite";
import siteConfig from "../../vite.config.ts";

// The site's own build with a source map beside the worker's bundle: what tools/bench/workerSize.ts reads to say
// which module each byte of the upload came from.
export default defineConfig(async (env) => {
  const site = (typeof siteConfig === "function" ? await siteConfig(env) : await siteConfig) as UserConfig;
  return mergeConfig(site, { environments: { signin_site: { build: { sourcemap: true } } } });
});
