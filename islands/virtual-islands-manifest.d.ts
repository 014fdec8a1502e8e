declare module "virtual:islands-manifest" {
  const manifest: import("./vite-plugin").IslandsManifest;
  export default manifest;
}
