import type { Hono } from "hono";
import type { EmulatorEnv } from "./env";
import type { Faults } from "./faults";
import type { Outbox } from "./outbox";
import type { SigningKey } from "./signingKey";
import type { Tickets } from "./tickets";
import type { Users } from "./users";

/** The state object's stores, built once per Durable Object instance. */
export interface Services {
  sql: SqlStorage;
  users: Users;
  tickets: Tickets;
  outbox: Outbox;
  faults: Faults;
  signingKey: () => Promise<SigningKey>;
}

export interface EmulatorHono {
  Bindings: EmulatorEnv;
  Variables: {
    services: Services;
    /** The site's public origin for this request (X-Forwarded-* or SITE_ORIGIN). */
    site: string;
    /** Emulator clock for this request, ms since the epoch. */
    now: number;
  };
}

export type EmulatorApp = Hono<EmulatorHono>;
