import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

// Prints, after the run, the wall time of each vitest project (its first file's start to its last file's end; the
// projects overlap) and the slowest files, so that every run, CI's included, shows where the time went.

interface Span {
  start: number;
  end: number;
  files: number;
  tests: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class StageTimes implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly runStart = Date.now();

  private readonly ended = new Map<string, number>();

  onTestModuleStart(module: TestModule): void {
    this.started.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.set(module.moduleId, Date.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const now = Date.now();
    const projects = new Map<string, Span>();
    const files: Array<{ name: string; ms: number; tests: number }> = [];
    for (const module of modules) {
      const start = this.started.get(module.moduleId) ?? this.runStart;
      const end = this.ended.get(module.moduleId) ?? now;
      const tests = Array.from(module.children.allTests()).length;
      const span = projects.get(module.project.name) ?? { start, end, files: 0, tests: 0 };
      span.start = Math.min(span.start, start);
      span.end = Math.max(span.end, end);
      span.files += 1;
      span.tests += tests;
      projects.set(module.project.name, span);
      files.push({ name: relative(process.cwd(), module.moduleId), ms: end - start, tests });
    }
    const lines = [
      "",
      "Time per project (wall, from its first file's start to its last file's end, and when those were in the run):",
    ];
    const at = (ms: number) => `${((ms - this.runStart) / 1000).toFixed(0)} s`;
    for (const [name, span] of [...projects].sort(([, a], [, b]) => a.start - b.start))
      lines.push(
        `  ${name.padEnd(16)} ${seconds(span.end - span.start).padStart(8)}  ${span.files} files, ${span.tests} tests` +
          ` (${at(span.start)} to ${at(span.end)})`,
      );
    lines.push("Slowest files (import and tests):");
    for (const file of files.sort((a, b) => b.ms - a.ms).slice(0, 10))
      lines.push(`  ${seconds(file.ms).padStart(8)}  ${file.name} (${file.tests} tests)`);
    lines.push(`Vitest wall time: ${seconds(now - this.runStart)}`, "");
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
