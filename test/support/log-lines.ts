// For tests: the structured lines the service logs while a test runs, parsed, at INFO whatever the level was, and kept off the console with its metrics.
import { vi } from 'vitest';
import { logger } from '#platform/observability.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are asserted field by field.
export type LogLine = Record<string, any>;

export interface CapturedLogs {
  readonly lines: LogLine[];
  /** The lines whose message is this one. */
  withMessage(message: string): LogLine[];
  restore(): void;
}

/** A JSON object: a log line if it has a level, else an EMF document. */
function jsonObject(text: string): LogLine | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as LogLine) : undefined;
  } catch {
    return undefined;
  }
}

export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = [];
  const level = logger.getLevelName();
  logger.setLogLevel('INFO');
  // Errors are written to stderr, the rest to stdout; what is not JSON, such as a test's own output, is let through.
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    return vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const other = text.split('\n').filter((part) => {
        if (!part.trim()) return false;
        const object = jsonObject(part);
        if (object && 'level' in object) lines.push(object);
        return !object;
      });
      if (other.length > 0) write(`${other.join('\n')}\n`);
      return true;
    });
  });
  return {
    lines,
    withMessage: (message) => lines.filter((line) => line.message === message),
    restore() {
      for (const spy of spies) spy.mockRestore();
      logger.setLogLevel(level);
    },
  };
}
