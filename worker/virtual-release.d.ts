declare module "virtual:release" {
  /** product §9 release label: `v<version>+<short git hash>` (worker/release.vite-plugin.ts). */
  const release: string;
  export default release;
}
