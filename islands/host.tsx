import { type ComponentType, createContext, type ReactElement, useContext } from "react";
import type { IslandName } from "./names";

/**
 * Fired on the form whenever a field's validity changes, so the submit islands can follow it. Here rather than in
 * fieldValidation.ts, so a button-only page does not load the field rules for one string (issue 12: island bytes).
 */
export const VALIDITY_EVENT = "field-validity";

/** Filled while a page renders; the document shell reads it to decide whether any script ships at all. */
export const IslandCollector = /* @__PURE__ */ createContext<Set<IslandName> | null>(null);

export type Hosted<P> = ((props: P) => ReactElement) & { Component: ComponentType<P>; islandName: IslandName };

/**
 * Wraps a client component so that the server renders it inside a host element carrying its name and
 * its props as escaped JSON; the client entry hydrates exactly that element with the same props. The browser never
 * calls it: the client registry imports each island's component by name, so the host is left out of its bundle.
 */
/* @__NO_SIDE_EFFECTS__ */
export function island<P extends object>(name: IslandName, Component: ComponentType<P>): Hosted<P> {
  function IslandHost(props: P) {
    useContext(IslandCollector)?.add(name);
    return (
      <div data-island={name} data-props={JSON.stringify(props)} className="island">
        <Component {...props} />
      </div>
    );
  }
  return Object.assign(IslandHost, { Component, islandName: name });
}
