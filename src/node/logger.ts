/**
 * A small injected logger: one child per subsystem, levels filtered once at the root. PTY bytes
 * are logged only at trace level. Output goes to stderr so stdout stays free for CLI results.
 */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

const levelRank: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, silent: 100 };

export interface ILogger {
  trace(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(subsystem: string): ILogger;
  isEnabled(level: LogLevel): boolean;
}

export type LogSink = (line: string) => void;

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return value !== undefined && Object.hasOwn(levelRank, value) ? (value as LogLevel) : fallback;
}

export function createLogger(
  options: { level?: LogLevel; sink?: LogSink; subsystem?: string } = {},
): ILogger {
  const level = options.level ?? parseLogLevel(process.env.SWITCHBOARD_LOG_LEVEL, 'info');
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const make = (subsystem: string): ILogger => {
    const log = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (levelRank[at] < levelRank[level]) return;
      const extra = fields && Object.keys(fields).length > 0 ? ' ' + safeJson(fields) : '';
      sink(`${new Date().toISOString()} ${at.toUpperCase()} [${subsystem}] ${message}${extra}`);
    };
    return {
      trace: (m, f) => log('trace', m, f),
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (name) => make(subsystem ? `${subsystem}.${name}` : name),
      isEnabled: (at) => levelRank[at] >= levelRank[level],
    };
  };
  return make(options.subsystem ?? 'switchboard');
}

/** A logger that drops everything; for tests that do not look at logs. */
export const nullLogger: ILogger = createLogger({ level: 'silent', sink: () => {} });

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v) => (v instanceof Error ? { name: v.name, message: v.message } : v));
  } catch {
    return '[unserializable fields]';
  }
}
