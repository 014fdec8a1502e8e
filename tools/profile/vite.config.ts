import { defineConfig, mergeConfig, type UserConfig } from "vite";
import siteConfig from "../../vite.config.ts";

// The site's own build with the worker left unminified (function names kept), into .profile-build/: what
// tools/profile/run.ts profiles, so that a profile's frames name the site's and the libraries' functions. The
// minified dist/ build is the one timed.
export default defineConfig(async (env) => {
  const site = (typeof siteConfig === "function" ? await siteConfig(env) : await siteConfig) as UserConfig;
  return mergeConfig(site, {
    build: { outDir: ".profile-build" },
    environments: { signin_site: { build: { minify: false } } },
  });
});
