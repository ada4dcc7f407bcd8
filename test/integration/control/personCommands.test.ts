/**
 * A line a person types into a pane — not an exec — that starts with a subshell, `(cd app && make)`,
 * is a finished command for all three consumers of command events: the terminal's lastCommand
 * (the sidebar), the bus's `command.<id>.start` / `.end` topics, and History's command list. With
 * only bash's DEBUG trap such a line was never marked (subshells do not inherit the trap), so it
 * reached none of them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { type Frame, type NdjsonClient, startTestHub, type TestHub } from './controlTestKit.ts';

interface PersonLine {
  line: string;
  exitCode: number;
  /** What the bus's end event carries as output (plain text, as exec returns it). */
  output: string;
}

const subshellLines: PersonLine[] = [
  { line: '(cd sub && make)', exitCode: 0, output: 'built\n' },
  { line: '(cd sub && make fail)', exitCode: 2, output: 'make: *** [Makefile:4: fail] Error 3\n' },
  { line: '(exit 5)', exitCode: 5, output: '' },
  { line: '(cd sub; cat file.txt) | tr a-z A-Z', exitCode: 0, output: 'IN SUB\n' },
  { line: '( cd sub && pwd ) && echo after', exitCode: 0, output: '' /* set per terminal: the workspace path */ },
  // Not a subshell: the shape the DEBUG trap always saw, as a control.
  { line: 'cd sub && make; cd ..', exitCode: 0, output: 'built\n' },
];

const shellsUnderTest = [
  { name: 'bash', file: 'bash' },
  { name: 'zsh', file: 'zsh' },
] as const;

describe("a person's own subshell line is a finished command for the sidebar, the bus and History", () => {
  let t: TestHub;
  let person: LocalHubClient;
  let bus: NdjsonClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    mkdirSync(join(t.workspace, 'sub'));
    writeFileSync(join(t.workspace, 'sub', 'file.txt'), 'in sub\n');
    writeFileSync(join(t.workspace, 'sub', 'Makefile'), 'all:\n\t@echo built\nfail:\n\t@exit 3\n');
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    bus = await t.connect();
    const hello = await bus.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'watcher' });
    assert.equal(hello.ok, true, hello.error);
    const subscribed = await bus.request({ cmd: 'subscribe', protocol: 'claws/2', topic: 'command.*.*' });
    assert.equal(subscribed.ok, true, subscribed.error);
  });

  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  for (const shell of shellsUnderTest) {
    describe(`typed into ${shell.name} with shell integration`, () => {
      let id: string;

      before(async () => {
        const info = await person.call('terminal.create', { file: shell.file, env: t.env, name: `person-${shell.name}` });
        id = info.id;
        await pollUntil(async () => (await person.call('terminal.list', {})).find((terminal) => terminal.id === id)?.shellIntegration, {
          timeoutMs: 15_000,
          what: `shell integration in ${shell.name}`,
        });
      });

      after(async () => {
        await person.call('terminal.close', { id });
      });

      for (const entry of subshellLines) {
        it(entry.line, async () => {
          const output = entry.line.startsWith('( cd sub && pwd )') ? `${t.workspace}/sub\nafter\n` : entry.output;
          const isOurs = (frame: Frame, topic: string) =>
            frame.push === 'message' && frame.topic === `command.${id}.${topic}` && frame.payload.commandLine === entry.line;
          // Typed as a person types: the line, then Enter.
          await person.call('terminal.write', { id, data: `${entry.line}\r` });

          const end = await bus.waitFor((frame) => isOurs(frame, 'end'), 10_000, `command.${id}.end for ${entry.line}`);
          assert.deepEqual(
            { commandLine: end.payload.commandLine, exitCode: end.payload.exitCode, output: end.payload.output, source: end.payload.source },
            { commandLine: entry.line, exitCode: entry.exitCode, output, source: 'shell' },
            'the bus announced its end',
          );
          const start = await bus.waitFor((frame) => isOurs(frame, 'start'), 1_000, `command.${id}.start for ${entry.line}`);
          assert.ok(start.sequence < end.sequence, 'start was announced before end');

          const info = (await person.call('terminal.list', {})).find((terminal) => terminal.id === id);
          assert.deepEqual(
            { commandLine: info?.lastCommand?.commandLine, exitCode: info?.lastCommand?.exitCode, running: info?.runningCommand },
            { commandLine: entry.line, exitCode: entry.exitCode, running: null },
            'the sidebar shows it as the last command, finished',
          );

          const sessionId = t.hub.history.sessionOfTerminal(id);
          assert.ok(sessionId, 'History records the terminal');
          const recorded = await pollUntil(
            async () => (await person.call('history.commands', { sessionId })).commands.find((command) => command.commandLine === entry.line && command.startedAt === end.payload.startedAt),
            { timeoutMs: 10_000, what: `${entry.line} in History` },
          );
          assert.equal(recorded.exitCode, entry.exitCode, 'History has its exit code');
          assert.notEqual(recorded.endedAt, null, 'History has it as finished');
        });
      }
    });
  }
});
