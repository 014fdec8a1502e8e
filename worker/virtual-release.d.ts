declare module "virtual:release" {
  /** SPEC §9 release label: `v<version>+<short git hash>` (worker/release.vite-plugin.ts). */
  const release: string;
  export default release;
}
