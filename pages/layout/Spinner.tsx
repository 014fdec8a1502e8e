import { common } from "../../messages/ja";

/** The loading spinner dialog (product §2); islands open it while they wait on the worker. */
export function Spinner({ open = false }: { open?: boolean }) {
  return (
    <dialog className="spinner" open={open} aria-label={common.loading} aria-busy="true">
      <span className="spinner-wheel" aria-hidden="true" />
      <span className="visually-hidden">{common.loading}</span>
    </dialog>
  );
}
