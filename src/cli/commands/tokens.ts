/** `switchboard tokens`: list, create and revoke control-socket access tokens. */
import type { ControlTokenInfo } from '../../common/api/contract.ts';
import { CliUsageError, ExitCode } from '../command.ts';
import { defineControlCommand, intOption, printable, printJson, requirePositionals } from '../controlCommand.ts';

function day(epochMs: number | null): string {
  return epochMs === null ? '-' : new Date(epochMs).toISOString().slice(0, 10);
}

function status(token: ControlTokenInfo, now: number): string {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

export const tokensCommand = defineControlCommand({
  name: 'tokens',
  summary: 'List, create or revoke access tokens for the control socket.',
  usage: 'tokens list | create NAME --scope read|drive [--terminal TERMINAL]... [--expires-days N] | revoke TOKEN_ID',
  details: [
    'Tokens matter when the "controlTokenAuth" setting is on: then every control connection must',
    'authenticate with one. A `read` token may list and read terminals; a `drive` token may also type',
    'into, create and close them. `create` prints the secret once; Switchboard keeps only its hash.',
    'With token auth on, managing tokens needs a drive token not limited to terminals (--token or',
    '$SWITCHBOARD_TOKEN).',
  ].join('\n'),
  allowPositionals: true,
  options: {
    scope: { type: 'string', valueName: 'read|drive', description: 'create: what the token may do' },
    terminal: { type: 'string', multiple: true, valueName: 'TERMINAL', description: 'create: limit the token to this terminal: id, unique prefix or name (repeatable)' },
    'expires-days': { type: 'string', valueName: 'N', description: 'create: the token expires after N days' },
  },
  async run({ args, io, client, terminalId }) {
    const [action] = requirePositionals(args, ['list|create|revoke'], { rest: true });
    switch (action) {
      case 'list': {
        requirePositionals(args, ['list']);
        const { tokens } = await client.call('tokens.list', {});
        if (args.json) {
          printJson(io, tokens);
          return ExitCode.ok;
        }
        const now = Date.now();
        // Names say which pane a token is for; a terminal that is gone (closed, not restored) says so.
        const names = new Map((await client.list()).map((terminal) => [terminal.id, terminal.name]));
        const terminalCell = (id: string) => `${id} (${names.has(id) ? printable(names.get(id)!) : 'gone'})`;
        const rows = [
          ['ID', 'NAME', 'SCOPE', 'TERMINALS', 'CREATED', 'EXPIRES', 'STATUS'],
          ...tokens.map((token) => [
            token.id,
            printable(token.name),
            token.scopes.join(','),
            token.terminals === null ? 'all' : token.terminals.map(terminalCell).join(','),
            day(token.createdAt),
            day(token.expiresAt),
            status(token, now),
          ]),
        ];
        const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
        for (const row of rows) io.stdout(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd() + '\n');
        return ExitCode.ok;
      }
      case 'create': {
        const [, name] = requirePositionals(args, ['create', 'NAME']);
        const scope = args.values.scope;
        if (scope === undefined) throw new CliUsageError('--scope is required: read or drive');
        if (scope !== 'read' && scope !== 'drive') throw new CliUsageError('--scope must be read or drive');
        // Like every verb, --terminal takes an id, a unique prefix or a name; a token for a
        // terminal that does not exist would let nothing through.
        const terminalRefs = args.values.terminal as string[] | undefined;
        const terminals = terminalRefs && (await Promise.all(terminalRefs.map((ref) => terminalId(ref))));
        const expiresInDays = intOption(args, 'expires-days', { min: 1, max: 3650 });
        const created = await client.call('tokens.create', {
          name: name!,
          scopes: [scope],
          terminals: terminals && terminals.length > 0 ? terminals : undefined,
          expiresInDays,
        });
        if (args.json) printJson(io, created);
        else {
          io.stdout(`${created.secret}\n`);
          io.stderr(`Created token ${created.token.id} (${scope}). The secret above is shown only this once.\n`);
        }
        return ExitCode.ok;
      }
      case 'revoke': {
        const [, tokenId] = requirePositionals(args, ['revoke', 'TOKEN_ID']);
        const { token } = await client.call('tokens.revoke', { tokenId: tokenId! });
        if (args.json) printJson(io, token);
        return ExitCode.ok;
      }
      default:
        throw new CliUsageError(`unknown tokens action ${JSON.stringify(action)}; use list, create or revoke`);
    }
  },
});
