import { type ComponentType, createContext, type ReactElement, useContext } from "react";
import type { IslandName } from "./names";

/** Fired on the form whenever a field's validity changes, so the submit islands can follow it. */
export const VALIDITY_EVENT = "field-validity";

/**
 * Filled while a page renders; the document shell reads it to decide whether any script ships at all. Marked pure: the
 * browser imports this file for VALIDITY_EVENT alone, and its bundle drops the unused context.
 */
export const IslandCollector = /* @__PURE__ */ createContext<Set<IslandName> | null>(null);

/**
 * Wraps a client component so that the server renders it inside a host element carrying its name and
 * its props as escaped JSON; the client entry hydrates exactly that element with the same props. Only the server calls
 * it (hosts.ts); the browser's registry (registry.ts) takes the components themselves.
 */
export function island<P extends object>(name: IslandName, Component: ComponentType<P>): (props: P) => ReactElement {
  function IslandHost(props: P) {
    useContext(IslandCollector)?.add(name);
    return (
      <div data-island={name} data-props={JSON.stringify(props)} className="island">
        <Component {...props} />
      </div>
    );
  }
  return IslandHost;
}
