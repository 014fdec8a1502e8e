// Provided by brandDataPlugin() (themes/vite-plugin.ts): the output of buildBrandData().
declare module "virtual:brand-data" {
  const brandData: import("./schema").BrandData;
  export default brandData;
}
