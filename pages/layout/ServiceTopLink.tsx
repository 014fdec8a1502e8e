import { common } from "../../messages/ja";
import { serviceTopUrl, usePage } from "./PageContext";

export function ServiceTopLink({ label = common.backToServiceTop }: { label?: string }) {
  return <a href={serviceTopUrl(usePage())}>{label}</a>;
}
