import { describe, expect, it } from "vitest";
import { call } from "./emulatorClient";

describe("GET /auth/health", () => {
  it("answers ok", async () => {
    const response = await call("/auth/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });
});
