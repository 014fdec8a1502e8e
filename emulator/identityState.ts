import { DurableObject } from "cloudflare:workers";
import type { Hono } from "hono";
import { createApp } from "./app";
import type { EmulatorHono } from "./context";
import type { EmulatorEnv } from "./env";
import { Faults } from "./faults";
import { Outbox } from "./outbox";
import { loadSigningKey, type SigningKey } from "./signingKey";
import { migrate } from "./store";
import { Tickets } from "./tickets";
import { Users } from "./users";

/** All emulator state, in one SQLite-backed object named "global": calls are serialised, no races. */
export class IdentityState extends DurableObject<EmulatorEnv> {
  private readonly app: Hono<EmulatorHono>;

  constructor(ctx: DurableObjectState, env: EmulatorEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    migrate(sql);
    let signingKey: Promise<SigningKey> | undefined;
    this.app = createApp({
      sql,
      users: new Users(sql),
      tickets: new Tickets(sql),
      outbox: new Outbox(sql),
      faults: new Faults(sql),
      signingKey: () => (signingKey ??= loadSigningKey(sql)),
    });
  }

  override fetch(request: Request): Response | Promise<Response> {
    return this.app.fetch(request, this.env);
  }
}
