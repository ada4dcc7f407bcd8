/** `switchboard history`: list, search, show, export and reference (hand to an agent) the recorded terminal sessions. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type HistoryFilter, HistoryReferenceLimits, type HistorySession } from '../../common/api/historyContract.ts';
import { CliUsageError, ExitCode, type ParsedCommandArgs } from '../command.ts';
import type { ControlClient } from '../controlClient.ts';
import { defineControlCommand, intOption, printJson, requirePositionals } from '../controlCommand.ts';
import { formatCommandTable, formatReferenceSummary, formatSearchHits, formatSessionTable } from '../historyFormat.ts';
import { resolveTerminalId, terminalRefHelp } from '../terminalRef.ts';

const relativeUnits: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** A date and time as ISO 8601 writes it (a space instead of the T is fine); local time without a zone. */
const isoDateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

/** Whether YYYY-MM-DD names a day that exists (Date.parse rolls 2026-02-30 over to March 2). */
function isCalendarDay(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/** `30m`, `2h`, `3d`, `1w` ago, or a date (`2026-12-01`, `2026-12-01T14:00`) in local time. */
export function parseWhen(text: string, option: string, now = Date.now()): number {
  const relative = /^(\d+)([mhdw])$/.exec(text);
  if (relative) return now - Number(relative[1]) * relativeUnits[relative[2]!]!;
  // Only ISO dates: Date.parse alone takes "5" or "-5" for May 2001 and a filter would silently match everything.
  const absolute = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? Date.parse(`${text}T00:00`)
    : isoDateTime.test(text)
      ? Date.parse(text.replace(' ', 'T'))
      : Number.NaN;
  if (!Number.isNaN(absolute) && !isCalendarDay(text.slice(0, 10))) throw new CliUsageError(`--${option}: there is no day ${text.slice(0, 10)}`);
  if (Number.isNaN(absolute)) throw new CliUsageError(`--${option} must be a date (2026-12-01, 2026-12-01T14:00) or an age (30m, 2h, 3d, 1w), got ${JSON.stringify(text)}`);
  return absolute;
}

/** The filter options shared by list, search and commands, as socket fields. */
function filterFields(args: ParsedCommandArgs): HistoryFilter {
  const fields: HistoryFilter = {};
  const { since, until, cwd, creator, status } = args.values;
  if (typeof since === 'string') fields.from = parseWhen(since, 'since');
  if (typeof until === 'string') fields.to = parseWhen(until, 'until');
  if (typeof cwd === 'string') fields.cwd = resolve(cwd);
  if (typeof creator === 'string') fields.creator = creator;
  if (typeof status === 'string') {
    if (status !== 'success' && status !== 'failure' && status !== 'running') throw new CliUsageError('--status must be success, failure or running');
    fields.exit = status;
  }
  return fields;
}

/** A SESSION argument: a full id, or a prefix unique among the newest 1000 sessions. */
async function resolveSessionId(client: ControlClient, ref: string): Promise<string> {
  const { sessions } = await client.call('history.list', { limit: 1000 });
  return sessionIdIn(sessions, ref);
}

function sessionIdIn(sessions: readonly HistorySession[], ref: string): string {
  if (sessions.some((session) => session.id === ref)) return ref;
  const matches = sessions.filter((session) => session.id.startsWith(ref));
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length > 1) throw new CliUsageError(`session ${JSON.stringify(ref)} is ambiguous: ${matches.slice(0, 5).map((session) => session.id).join(', ')}…`);
  // Older than the newest 1000: let the server say whether it exists.
  return ref;
}

export const historyCommand = defineControlCommand({
  name: 'history',
  summary: 'List, search, show or export recorded terminal sessions.',
  usage:
    'history list [FILTERS] | search QUERY [FILTERS] | show SESSION [--commands] [--raw] | commands [QUERY] [--session SESSION] | export SESSION [--format cast|text] [--output FILE] | reference ID... [--notes TEXT] [--to TERMINAL]',
  details: [
    'Every terminal session is recorded (see "History" in the README). FILTERS: --since, --until',
    '(an age such as 2h, 3d, 1w, or a date), --cwd DIR (that folder and below), --creator NAME',
    '(you, an agent\'s name), --status success|failure|running.',
    'search: words as typed ("quotes" for a phrase); matches are marked in the snippets.',
    'show: the transcript as text (ANSI stripped; --raw keeps the escape sequences), or with',
    '--commands the commands run in it with their exit codes.',
    'export: asciicast v2 (.cast, plays with `asciinema play`) or plain text, to FILE or stdout.',
    'reference: hand sessions to an agent without pasting them. Each transcript is written to a',
    'private plain-text file under $SWITCHBOARD_HOME/references/; the pointer (paths, commands,',
    'exit codes, times and --notes) is printed, and with --to typed into that terminal without',
    `Enter. ID is SESSION, or SESSION:N for command N of it (N: the CMD column of \`history`,
    `commands\`); at most ${HistoryReferenceLimits.maxItems} IDs, notes at most 16 KiB.`,
    'SESSION is an id from `history list`, or a unique prefix of one.',
    terminalRefHelp,
  ].join('\n'),
  allowPositionals: true,
  options: {
    limit: { type: 'string', valueName: 'N', description: 'list, search, commands: at most N results' },
    since: { type: 'string', valueName: 'WHEN', description: 'sessions started at or after WHEN' },
    until: { type: 'string', valueName: 'WHEN', description: 'sessions started before WHEN' },
    cwd: { type: 'string', valueName: 'DIR', description: 'sessions in DIR or below' },
    creator: { type: 'string', valueName: 'NAME', description: 'sessions created by NAME' },
    status: { type: 'string', valueName: 'STATUS', description: 'success, failure or running' },
    session: { type: 'string', valueName: 'SESSION', description: 'commands: of this session only' },
    commands: { type: 'boolean', description: 'show: list the commands instead of the transcript' },
    raw: { type: 'boolean', description: 'show: keep ANSI escape sequences' },
    format: { type: 'string', valueName: 'cast|text', description: 'export: asciicast v2 (default) or plain text' },
    output: { type: 'string', short: 'o', valueName: 'FILE', description: 'export: write to FILE instead of stdout' },
    notes: { type: 'string', valueName: 'TEXT', description: 'reference: words for the agent, sent with the pointer' },
    to: { type: 'string', valueName: 'TERMINAL', description: 'reference: type the pointer into this terminal (no Enter)' },
  },
  async run({ args, io, client }) {
    const [action] = requirePositionals(args, ['list|search|show|commands|export|reference'], { rest: true });
    switch (action) {
      case 'list': {
        requirePositionals(args, ['list']);
        const limit = intOption(args, 'limit', { min: 1, max: 1000 }) ?? 50;
        const filter = filterFields(args);
        const { sessions } = await client.call('history.list', { limit, ...filter });
        if (args.json) printJson(io, sessions);
        else io.stdout(formatSessionTable(sessions, io.env.HOME, Date.now(), Object.keys(filter).length > 0));
        return ExitCode.ok;
      }
      case 'search': {
        const query = args.positionals.slice(1).join(' ').trim();
        if (!query) throw new CliUsageError('missing QUERY');
        const limit = intOption(args, 'limit', { min: 1, max: 500 }) ?? 50;
        const { hits } = await client.call('history.search', { query, limit, ...filterFields(args) });
        if (args.json) printJson(io, hits);
        else io.stdout(formatSearchHits(hits, { color: io.stdoutStream !== undefined && (io.stdoutStream as { isTTY?: boolean }).isTTY === true && !io.env.NO_COLOR }));
        return ExitCode.ok;
      }
      case 'show': {
        const [, ref] = requirePositionals(args, ['show', 'SESSION']);
        const sessionId = await resolveSessionId(client, ref!);
        if (args.values.commands) {
          const { commands } = await client.call('history.commands', { sessionId, limit: 5000 });
          const oldestFirst = [...commands].reverse();
          if (args.json) printJson(io, oldestFirst);
          else io.stdout(formatCommandTable(oldestFirst, io.env.HOME));
          return ExitCode.ok;
        }
        if (args.json) {
          const { session } = await client.call('history.get', { sessionId });
          printJson(io, session);
          return ExitCode.ok;
        }
        let offset: number | undefined;
        for (;;) {
          const read = await client.call('history.read', { sessionId, offset, strip: !args.values.raw });
          io.stdout(read.bytes);
          if (read.nextOffset >= read.totalSize || read.nextOffset === offset) break;
          offset = read.nextOffset;
        }
        return ExitCode.ok;
      }
      case 'commands': {
        const query = args.positionals.slice(1).join(' ').trim();
        const limit = intOption(args, 'limit', { min: 1, max: 5000 }) ?? 50;
        const filter = filterFields(args);
        const sessionId = typeof args.values.session === 'string' ? await resolveSessionId(client, args.values.session) : undefined;
        const { commands } = await client.call('history.commands', { limit, ...filter, query: query || undefined, sessionId });
        if (args.json) printJson(io, commands);
        else io.stdout(formatCommandTable(commands, io.env.HOME));
        return ExitCode.ok;
      }
      case 'export': {
        const [, ref] = requirePositionals(args, ['export', 'SESSION']);
        const format = args.values.format ?? 'cast';
        if (format !== 'cast' && format !== 'text') throw new CliUsageError('--format must be cast or text');
        const sessionId = await resolveSessionId(client, ref!);
        const exported = await client.call('history.export', { sessionId, format });
        const output = args.values.output;
        if (typeof output === 'string') {
          const path = resolve(io.cwd, output);
          await writeFile(path, exported.contents, { mode: 0o600 });
          if (args.json) printJson(io, { path, fileName: exported.fileName, bytes: Buffer.byteLength(exported.contents) });
          else io.stderr(`Wrote ${path}\n`);
        } else {
          io.stdout(exported.contents);
        }
        return ExitCode.ok;
      }
      case 'reference': {
        const refs = args.positionals.slice(1);
        if (refs.length === 0) throw new CliUsageError('missing ID (a session id, or SESSION:N for one command of it)');
        if (refs.length > HistoryReferenceLimits.maxItems) throw new CliUsageError(`at most ${HistoryReferenceLimits.maxItems} IDs in one reference, got ${refs.length}`);
        const parsed = refs.map((ref) => {
          const match = /^([^:]+)(?::(\d+))?$/.exec(ref);
          if (!match) throw new CliUsageError(`ID must be SESSION or SESSION:N, got ${JSON.stringify(ref)}`);
          return { ref: match[1]!, commandId: match[2] === undefined ? undefined : Number(match[2]) };
        });
        const notes = typeof args.values.notes === 'string' ? args.values.notes : undefined;
        const to = typeof args.values.to === 'string' ? await resolveTerminalId(client, args.values.to) : undefined;
        const { sessions } = await client.call('history.list', { limit: 1000 });
        const items = parsed.map(({ ref, commandId }) => ({ sessionId: sessionIdIn(sessions, ref), ...(commandId === undefined ? {} : { commandId }) }));
        const result = await client.call('history.reference', { items, notes, deliverTo: to });
        if (args.json) {
          printJson(io, result);
          return ExitCode.ok;
        }
        // The pointer alone on stdout (to pipe or copy); what was written, and where it went, on stderr.
        io.stdout(result.pointer + '\n');
        io.stderr(formatReferenceSummary(result, io.env.HOME));
        return ExitCode.ok;
      }
      default:
        throw new CliUsageError(`unknown history action ${JSON.stringify(action)}; use list, search, show, commands, export or reference`);
    }
  },
});
