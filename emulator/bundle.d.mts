import type { WorkerOptions } from "miniflare";

/** See bundle.mjs: bundles the emulator and answers its miniflare WorkerOptions (name "emulator"). */
export declare function emulatorWorkerOptions(options?: { vars?: Record<string, string> }): Promise<WorkerOptions>;
