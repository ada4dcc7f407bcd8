/**
 * "Send to Claude" pastes a selection into a pane without ever running it: a real bash in a real
 * PTY shows whether a line break became Enter or a control character drove the line editor.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../src/common/api/errors.ts';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { type IdeTestHub, startIdeHub } from './ideTestKit.ts';

const bash = { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false };

async function screenText(kit: IdeTestHub, terminalId: string): Promise<string> {
  return (await kit.hub.ptyHost.require(terminalId).readScreen()).lines.join('\n');
}

/** A bash pane whose line editor has bracketed paste on or off, ready at its prompt. */
async function shellPane(kit: IdeTestHub, bracketedPaste: boolean): Promise<string> {
  const info = await kit.api.call('terminal.create', { ...bash, name: bracketedPaste ? 'bracketed' : 'plain', cwd: kit.workspace });
  const session = kit.hub.ptyHost.require(info.id);
  session.write(`PS1='sb$ '; bind 'set enable-bracketed-paste ${bracketedPaste ? 'on' : 'off'}'; echo "READY-$((20+1))"\r`);
  await pollUntil(
    async () => {
      const screen = await session.readScreen();
      // The prompt after READY-21 is up once readline has (or has not) asked for bracketed paste.
      return /^READY-21$/m.test(screen.lines.join('\n')) && screen.bracketedPaste === bracketedPaste && screen.lines[screen.cursorY]?.trimEnd() === 'sb$';
    },
    { timeoutMs: 15_000, what: `a bash prompt with bracketed paste ${bracketedPaste ? 'on' : 'off'}` },
  );
  return info.id;
}

describe('"Send to Claude" into a pane', () => {
  let kit: IdeTestHub;

  before(async () => {
    kit = await startIdeHub();
  });
  after(async () => kit?.dispose());

  it('joins the lines of a multi-line selection when the program did not enable bracketed paste: nothing runs', async () => {
    const pane = await shellPane(kit, false);
    const sent = await kit.api.call('ide.sendToClaude', { terminalId: pane, text: 'echo AA$((6*7))\necho BB$((6*7))\r\n  echo CC$((6*7))\n' });
    assert.deepEqual(sent, { deliveredAs: 'paste', newlinesCollapsed: true });
    // Only the person's Enter runs it, as one line.
    await kit.api.call('terminal.write', { id: pane, data: '\r' });
    const screen = await pollUntil(async () => {
      const text = await screenText(kit, pane);
      return /^AA42 echo BB42 echo CC42 ?$/m.test(text) ? text : null;
    }, { what: 'the joined line run by Enter' });
    assert.doesNotMatch(screen, /^AA42$/m, 'the first line never ran on its own');
  });

  it('drops control characters, so a selection cannot kill the line, interrupt, or end a paste early', async () => {
    for (const bracketed of [false, true]) {
      const pane = await shellPane(kit, bracketed);
      await kit.api.call('ide.sendToClaude', { terminalId: pane, text: 'echo KEEP\x15ME\x03-\x1b[201~-\x7fTAIL$((2*3))' });
      await kit.api.call('terminal.write', { id: pane, data: '\r' });
      await pollUntil(async () => /^KEEPME-\[201~-TAIL6$/m.test(await screenText(kit, pane)) || null, { what: `the cleaned text run by Enter (bracketed paste ${bracketed})` });
    }
  });

  it('pastes a multi-line selection whole when the program enabled bracketed paste', async () => {
    const pane = await shellPane(kit, true);
    assert.deepEqual(await kit.api.call('ide.sendToClaude', { terminalId: pane, text: 'echo P1-$((1+1))\necho P2-$((2+2))' }), { deliveredAs: 'paste' });
    await kit.api.call('terminal.write', { id: pane, data: '\r' });
    await pollUntil(async () => {
      const text = await screenText(kit, pane);
      return (/^P1-2$/m.test(text) && /^P2-4$/m.test(text)) || null;
    }, { what: 'both pasted lines run by one Enter' });
  });

  it('refuses text that is only control characters', async () => {
    const pane = await shellPane(kit, false);
    const error = await kit.api.call('ide.sendToClaude', { terminalId: pane, text: '\x03\x1b\x04' }).catch((caught: ApiError) => caught);
    assert.ok(error instanceof ApiError && error.code === 'INVALID_PARAMS' && /nothing to send/.test(error.message));
  });
});

describe('"Send to Claude" when the pane\'s screen mirror has failed', () => {
  it('sends nothing (it cannot tell whether a line break would be Enter) and says why', async () => {
    const temp = createTempHome('sb-send-mirror-');
    // A mirror worker that dies at once: every terminal's mirror fails, the PTYs keep running.
    const brokenWorker = join(temp.home, 'brokenMirrorWorker.mjs');
    writeFileSync(brokenWorker, "throw new Error('mirror worker broken on purpose');\n");
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false, mirrorWorkerPath: brokenWorker });
    const api = createLocalHubClient(hub, { kind: 'person', name: 'you' });
    try {
      await hub.start();
      const info = await api.call('terminal.create', { ...bash, name: 'blind', cwd: temp.workspace });
      const session = hub.ptyHost.require(info.id);
      await pollUntil(async () => (await session.readScreen().then(() => null, () => true)), { what: 'the mirror to fail' });
      const ringText = () => session.readRing(0).data.toString('utf8');
      await api.call('terminal.write', { id: info.id, data: 'echo "READY-$((20+1))"\r' });
      await pollUntil(() => ringText().includes('READY-21') || null, { timeoutMs: 15_000, what: 'the shell' });

      const error = await api.call('ide.sendToClaude', { terminalId: info.id, text: 'echo SHOULD$((1+1))NOTRUN\necho TWICE' }).catch((caught: ApiError) => caught);
      assert.ok(error instanceof ApiError, 'refused');
      assert.equal(error.code, 'INTERNAL');
      assert.match(error.message, /^nothing was sent: cannot tell whether the program in terminal .* accepts a multi-line paste/);
      // Everything typed into the pane is echoed: a marker typed afterwards shows the text never came.
      await api.call('terminal.write', { id: info.id, data: 'echo "MARK-$((3*3))"\r' });
      await pollUntil(() => ringText().includes('MARK-9') || null, { timeoutMs: 15_000, what: 'the marker' });
      assert.doesNotMatch(ringText(), /SHOULD|TWICE/);
    } finally {
      api.dispose();
      await hub.shutdown();
      temp.dispose();
    }
  });
});
