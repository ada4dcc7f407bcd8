/**
 * The IDE bridge against a client that speaks exactly what the real `claude` CLI sends
 * (claude-ide.md), on a real Hub: real WebSocket, real PTYs, real files.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventPayload } from '../../../src/common/api/contract.ts';
import { ApiError } from '../../../src/common/api/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { FakeClaudeCli, type IdeTestHub, jsonOf, startIdeHub, texts, upgradeStatus } from './ideTestKit.ts';

const bash = { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false };

/** Every review event the Hub sent, in order. */
function recordReviewEvents(kit: IdeTestHub) {
  const events: Array<{ event: string; payload: any }> = [];
  for (const name of ['review.added', 'review.decided', 'review.removed', 'ide.changed', 'editor.openFile', 'editor.saved'] as const) {
    kit.api.on(name, (payload) => events.push({ event: name, payload }));
  }
  return events;
}

async function pendingReview(kit: IdeTestHub, predicate: (summary: EventPayload<'review.added'>) => boolean = () => true): Promise<EventPayload<'review.added'>> {
  return pollUntil(async () => (await kit.api.call('review.list', { decidedLimit: 0 })).pending.find(predicate), { timeoutMs: 15_000, what: 'a pending review' });
}

/** A process running in a pane, so `ide_connected` can be matched to it through its process tree. */
async function startChildInPane(kit: IdeTestHub, name: string): Promise<{ terminalId: string; pid: number }> {
  const info = await kit.api.call('terminal.create', { ...bash, name, cwd: kit.workspace });
  const session = kit.hub.ptyHost.require(info.id);
  session.write('sleep 600 & echo "CHILD=$!"; echo "PORT=$CLAUDE_CODE_SSE_PORT IDE=$ENABLE_IDE_INTEGRATION"\r');
  const screen = await pollUntil(
    async () => {
      const text = (await session.readScreen()).lines.join('\n');
      return /CHILD=\d+/.test(text) && /PORT=\d+ IDE=true/.test(text) ? text : null;
    },
    { timeoutMs: 15_000, what: 'the child pid and the IDE variables in the pane' },
  );
  assert.match(screen, new RegExp(`PORT=${kit.port} IDE=true`), 'every PTY gets CLAUDE_CODE_SSE_PORT and ENABLE_IDE_INTEGRATION');
  return { terminalId: info.id, pid: Number(/CHILD=(\d+)/.exec(screen)![1]) };
}

describe('IDE bridge: the CLI handshake and tools', () => {
  let kit: IdeTestHub;
  let events: ReturnType<typeof recordReviewEvents>;
  let pane: { terminalId: string; pid: number };
  let cli: FakeClaudeCli;

  before(async () => {
    kit = await startIdeHub();
    events = recordReviewEvents(kit);
    pane = await startChildInPane(kit, 'claude-pane');
    cli = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
  });
  after(async () => {
    await cli?.close();
    await kit?.dispose();
  });

  it('completes the handshake the real CLI performs and matches its pid to the pane', async () => {
    const init = await cli.handshake(pane.pid);
    assert.equal(init.protocolVersion, '2025-11-25', 'answers with the version the client sent');
    assert.deepEqual(init.capabilities, { tools: { listChanged: true } }, 'advertises only tools');
    assert.equal(init.serverInfo.name, 'Switchboard');
    const state = await pollUntil(async () => {
      const current = await kit.api.call('ide.getState', {});
      return current.clients[0]?.terminalId ? current : null;
    }, { what: 'the client matched to its pane' });
    assert.equal(state.port, kit.port);
    assert.equal(state.clients.length, 1);
    assert.deepEqual(
      { name: state.clients[0]!.name, version: state.clients[0]!.version, pid: state.clients[0]!.pid, terminalId: state.clients[0]!.terminalId, terminalName: state.clients[0]!.terminalName },
      { name: 'Claude Code', version: '2.1.197', pid: pane.pid, terminalId: pane.terminalId, terminalName: 'claude-pane' },
    );
    assert.ok(events.some((entry) => entry.event === 'ide.changed' && entry.payload.clients.some((client: any) => client.terminalId === pane.terminalId)), 'the UI hears about it');
  });

  it('lists the twelve tools with their argument schemas', async () => {
    const reply = await cli.request('tools/list', {});
    const tools = reply.result.tools as Array<{ name: string; inputSchema: { required?: string[]; properties?: Record<string, unknown> } }>;
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'checkDocumentDirty',
      'closeAllDiffTabs',
      'close_tab',
      'executeCode',
      'getCurrentSelection',
      'getDiagnostics',
      'getLatestSelection',
      'getOpenEditors',
      'getWorkspaceFolders',
      'openDiff',
      'openFile',
      'saveDocument',
    ]);
    const openDiff = tools.find((tool) => tool.name === 'openDiff')!;
    assert.deepEqual(openDiff.inputSchema.required?.sort(), ['new_file_contents', 'new_file_path', 'old_file_path', 'tab_name']);
    assert.deepEqual(tools.find((tool) => tool.name === 'getDiagnostics')!.inputSchema.required ?? [], []);
  });

  it('openDiff blocks until accepted in the app and returns exactly the approved contents, edits included', async () => {
    const file = join(kit.workspace, 'greet.ts');
    writeFileSync(file, 'export const a = 1;\nexport const b = 2;\n');
    const proposal = 'export const a = 1;\nexport const b = 3;\n';
    const reply = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: proposal, tab_name: '✻ [Claude Code] greet.ts ⧉' });
    const review = await pendingReview(kit, (summary) => summary.path === file);
    assert.equal(review.source.kind, 'ide');
    assert.equal(review.source.name, 'Claude Code');
    assert.equal(review.source.terminalId, pane.terminalId, 'the review names the pane Claude Code runs in');
    assert.equal(review.source.tabName, '✻ [Claude Code] greet.ts ⧉');
    assert.equal(review.change, 'modify');
    assert.equal(review.outsideWorkspace, false);
    assert.deepEqual(review.stats, { added: 1, removed: 1 });
    assert.ok(events.some((entry) => entry.event === 'review.added' && entry.payload.id === review.id));
    const item = await kit.api.call('review.get', { id: review.id });
    assert.equal(item.oldContents, 'export const a = 1;\nexport const b = 2;\n');
    assert.equal(item.newContents, proposal);

    // Still blocked: nothing answered yet.
    const race = await Promise.race([reply.then(() => 'answered'), new Promise((resolve) => setImmediate(() => resolve('blocked')))]);
    assert.equal(race, 'blocked');

    const edited = 'export const a = 1;\nexport const b = 42; // reviewer\n';
    const decided = await kit.api.call('review.decide', { id: review.id, decision: 'accept', finalContents: edited, comment: 'tweaked' });
    assert.equal(decided.state, 'accepted');
    assert.deepEqual(texts(await reply), ['FILE_SAVED', edited]);

    // What the real CLI does next: close_tab, sometimes twice.
    assert.deepEqual(texts(await cli.callTool('close_tab', { tab_name: '✻ [Claude Code] greet.ts ⧉' })), ['TAB_CLOSED']);
    assert.deepEqual(texts(await cli.callTool('close_tab', { tab_name: '✻ [Claude Code] greet.ts ⧉' })), ['TAB_CLOSED']);
    const list = await kit.api.call('review.list', {});
    assert.equal(list.pending.length, 0);
    const stored = list.decided.find((summary) => summary.id === review.id)!;
    assert.deepEqual({ decision: stored.decision!.decision, by: stored.decision!.by, edited: stored.decision!.edited, comment: stored.decision!.comment }, { decision: 'accepted', by: 'you', edited: true, comment: 'tweaked' });
    const full = await kit.api.call('review.get', { id: review.id });
    assert.equal(full.decision!.finalContents, edited);
    assert.match(full.decision!.unifiedDiff, /^--- a\/.*greet\.ts\n\+\+\+ b\/.*greet\.ts\n@@ -1,2 \+1,2 @@\n export const a = 1;\n-export const b = 2;\n\+export const b = 42; \/\/ reviewer\n$/);
    await assert.rejects(kit.api.call('review.decide', { id: review.id, decision: 'reject' }), (error: ApiError) => error.code === 'INVALID_PARAMS' && /already accepted by you/.test(error.message));
  });

  it('keeps the proposal byte for byte when accepted unchanged (no trailing newline, CRLF, BOM)', async () => {
    const file = join(kit.workspace, 'exact.txt');
    const proposal = '\uFEFFline one\r\nline two without newline';
    const reply = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: proposal, tab_name: 'exact' });
    const review = await pendingReview(kit, (summary) => summary.path === file);
    assert.equal(review.change, 'create', 'a file that does not exist yet is a new file');
    assert.equal((await kit.api.call('review.get', { id: review.id })).oldContents, null);
    await kit.api.call('review.decide', { id: review.id, decision: 'accept' });
    assert.deepEqual(texts(await reply), ['FILE_SAVED', proposal]);
  });

  it('a rejection answers DIFF_REJECTED with the tab name, and the decided list keeps the comment', async () => {
    const file = join(kit.workspace, 'rejected.txt');
    writeFileSync(file, 'old\n');
    const reply = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'new\n', tab_name: 'rejected-tab' });
    const review = await pendingReview(kit, (summary) => summary.path === file);
    await assert.rejects(kit.api.call('review.decide', { id: review.id, decision: 'reject', finalContents: 'x' }), /finalContents only goes with accept/);
    await kit.api.call('review.decide', { id: review.id, decision: 'reject', comment: 'not this way' });
    assert.deepEqual(texts(await reply), ['DIFF_REJECTED', 'rejected-tab']);
    const full = await kit.api.call('review.get', { id: review.id });
    assert.equal(full.state, 'rejected');
    assert.equal(full.decision!.comment, 'not this way');
    assert.match(full.decision!.unifiedDiff, /-old\n\+new\n$/, 'a rejection keeps the diff that was rejected');
  });

  it('a second openDiff with the same tab name rejects the first; close_tab withdraws a pending one', async () => {
    const file = join(kit.workspace, 'twice.txt');
    const first = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'v1\n', tab_name: 'same-tab' });
    const firstReview = await pendingReview(kit, (summary) => summary.path === file);
    const second = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'v2\n', tab_name: 'same-tab' });
    assert.deepEqual(texts(await first), ['DIFF_REJECTED', 'same-tab']);
    const secondReview = await pendingReview(kit, (summary) => summary.path === file);
    assert.notEqual(secondReview.id, firstReview.id);
    assert.ok(events.some((entry) => entry.event === 'review.removed' && entry.payload.id === firstReview.id && entry.payload.reason === 'superseded'));
    assert.equal((await kit.api.call('review.get', { id: secondReview.id })).newContents, 'v2\n');

    assert.deepEqual(texts(await cli.callTool('close_tab', { tab_name: 'same-tab' })), ['TAB_CLOSED']);
    assert.deepEqual(texts(await second), ['DIFF_REJECTED', 'same-tab']);
    assert.ok(events.some((entry) => entry.event === 'review.removed' && entry.payload.id === secondReview.id && entry.payload.reason === 'closed'));
    await assert.rejects(kit.api.call('review.decide', { id: secondReview.id, decision: 'accept' }), (error: ApiError) => error.code === 'NOT_FOUND');
    assert.deepEqual(texts(await cli.callTool('close_tab', { tab_name: 'no-such-tab' })), ['TAB_CLOSED'], 'closing an unknown tab is fine');
  });

  it('close_tab sent while its openDiff is still opening withdraws the review as closed', async () => {
    // A large current file keeps the open busy reading while close_tab arrives.
    const file = join(kit.workspace, 'racing.txt');
    writeFileSync(file, 'line\n'.repeat(400_000));
    const opening = cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'short\n', tab_name: 'racing-tab' });
    const closing = cli.callTool('close_tab', { tab_name: 'racing-tab' });
    assert.deepEqual(texts(await closing), ['TAB_CLOSED']);
    assert.deepEqual(texts(await opening), ['DIFF_REJECTED', 'racing-tab']);
    const added = events.filter((entry) => entry.event === 'review.added' && entry.payload.path === file);
    assert.equal(added.length, 1);
    const removed = events.find((entry) => entry.event === 'review.removed' && entry.payload.id === added[0]!.payload.id);
    assert.equal(removed?.payload.reason, 'closed');
  });

  it('flags a path outside every workspace folder and shows binary files by size', async () => {
    const outside = join(kit.home, 'outside.txt');
    const outsideReply = cli.callTool('openDiff', { old_file_path: outside, new_file_path: outside, new_file_contents: 'x\n', tab_name: 'outside' });
    const outsideReview = await pendingReview(kit, (summary) => summary.path === outside);
    assert.equal(outsideReview.outsideWorkspace, true);

    const binary = join(kit.workspace, 'image.bin');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]));
    const proposal = 'PNG\u0000new bytes';
    const binaryReply = cli.callTool('openDiff', { old_file_path: binary, new_file_path: binary, new_file_contents: proposal, tab_name: 'binary' });
    const binaryReview = await pendingReview(kit, (summary) => summary.path === binary);
    assert.deepEqual(binaryReview.binary, { oldBytes: 7, newBytes: Buffer.byteLength(proposal) });
    const item = await kit.api.call('review.get', { id: binaryReview.id });
    assert.equal(item.oldContents, null, 'binary contents never travel to the UI');
    assert.equal(item.newContents, null);
    await assert.rejects(kit.api.call('review.decide', { id: binaryReview.id, decision: 'accept', finalContents: 'edited' }), /binary file cannot be edited/);
    await kit.api.call('review.decide', { id: binaryReview.id, decision: 'accept' });
    assert.deepEqual(texts(await binaryReply), ['FILE_SAVED', proposal]);
    await kit.api.call('review.decide', { id: outsideReview.id, decision: 'reject' });
    assert.deepEqual(texts(await outsideReply), ['DIFF_REJECTED', 'outside']);
  });

  it('refuses a 20 MB proposal with a clear -32602 and keeps serving', async () => {
    const file = join(kit.workspace, 'huge.txt');
    const reply = await cli.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'x'.repeat(20 * 1024 * 1024), tab_name: 'huge' });
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error!.message, /huge\.txt is 20\.0 MiB, over the 10\.0 MiB limit/);
    assert.equal((await kit.api.call('review.list', { decidedLimit: 0 })).pending.length, 0, 'it never reached the queue');
    assert.deepEqual(jsonOf(await cli.callTool('getDiagnostics', {})), []);
  });

  it('answers getDiagnostics with and without uri as an IDE without diagnostics does', async () => {
    assert.deepEqual(jsonOf(await cli.callTool('getDiagnostics', {})), []);
    const uri = pathToFileURL(join(kit.workspace, 'greet.ts')).href;
    assert.deepEqual(jsonOf(await cli.callTool('getDiagnostics', { uri })), [{ uri, diagnostics: [] }]);
    const bad = await cli.callTool('getDiagnostics', { uri: 42 });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /^getDiagnostics: uri: /);
  });

  it('answers workspace folders, executeCode and unknown or malformed calls', async () => {
    const folders = jsonOf(await cli.callTool('getWorkspaceFolders', {}));
    assert.deepEqual(folders, { success: true, folders: [{ name: 'workspace', uri: pathToFileURL(kit.workspace).href, path: kit.workspace }], rootPath: kit.workspace });
    const execute = await cli.callTool('executeCode', { code: 'print(1)' });
    assert.equal(execute.result.isError, true);
    assert.match(texts(execute)[0]!, /not supported/);

    const unknownTool = await cli.callTool('rm_rf', {});
    assert.equal(unknownTool.error?.code, -32601);
    assert.match(unknownTool.error!.message, /unknown tool: rm_rf/);
    const missing = await cli.callTool('openDiff', { old_file_path: '/tmp/a', new_file_path: '/tmp/a', new_file_contents: 'x' });
    assert.equal(missing.error?.code, -32602);
    assert.match(missing.error!.message, /openDiff: tab_name: /);
    const wrongType = await cli.callTool('close_tab', { tab_name: 7 });
    assert.equal(wrongType.error?.code, -32602);
    assert.match(wrongType.error!.message, /close_tab: tab_name: .*string/);
    const unknownMethod = await cli.request('resources/list', {});
    assert.equal(unknownMethod.error?.code, -32601);

    cli.sendRaw('{"jsonrpc": "2.0", "method": ');
    cli.sendRaw('[{"jsonrpc":"2.0","id":99,"method":"tools/list"}]');
    cli.sendRaw(JSON.stringify({ jsonrpc: '1.0', id: 'weird', method: 42 }));
    cli.sendRaw(Buffer.from([0xde, 0xad]), true);
    await pollUntil(() => cli.orphanReplies.length >= 4 || null, { what: 'replies to the garbage frames' });
    assert.deepEqual(
      cli.orphanReplies.map((reply) => [reply.id, reply.error?.code]),
      [
        [null, -32700],
        [null, -32600],
        ['weird', -32600],
        [null, -32700],
      ],
      'parse error, batch refused, not JSON-RPC (answered under its id), binary frame refused',
    );
    const still = await cli.callTool('getWorkspaceFolders', {});
    assert.equal(jsonOf(still).success, true, 'the connection carries on after garbage');
  });

  it('drives selection_changed, getCurrentSelection and getLatestSelection from the UI', async () => {
    const file = join(kit.workspace, 'greet.ts');
    assert.deepEqual(jsonOf(await cli.callTool('getCurrentSelection', {})), { success: false, message: 'No active editor found' });
    assert.deepEqual(jsonOf(await cli.callTool('getLatestSelection', {})), { success: false, message: 'No selection available' });
    await kit.api.call('editor.setOpenEditors', { editors: [{ path: file, active: true, dirty: false }] });
    const range = { start: { line: 0, character: 7 }, end: { line: 1, character: 5 } };
    await kit.api.call('editor.setSelection', { source: 'file', path: file, text: 'const a = 1;\nexpor', range });
    const [notification] = await cli.waitForNotification('selection_changed');
    const expected = { text: 'const a = 1;\nexpor', filePath: file, fileUrl: pathToFileURL(file).href, selection: { ...range, isEmpty: false } };
    assert.deepEqual(notification!.params, expected);
    assert.deepEqual(jsonOf(await cli.callTool('getCurrentSelection', {})), { success: true, ...expected });

    // A pane selection is the latest selection, but not the active editor's.
    await kit.api.call('editor.setSelection', { source: 'terminal', path: null, terminalId: pane.terminalId, text: 'npm test', range: null });
    await cli.waitForNotification('selection_changed', 2);
    const latest = jsonOf(await cli.callTool('getLatestSelection', {}));
    assert.equal(latest.text, 'npm test');
    assert.equal(latest.filePath, 'terminal:claude-pane');
    assert.equal(jsonOf(await cli.callTool('getCurrentSelection', {})).filePath, file);
    const bad = await kit.api.callRaw('editor.setSelection', { source: 'file', path: 'relative/path', text: '', range: null }).catch((error: ApiError) => error);
    assert.ok(bad instanceof ApiError && bad.code === 'INVALID_PARAMS' && /absolute/.test(bad.message));
  });

  it('backs getOpenEditors, checkDocumentDirty and saveDocument with the UI file tabs', async () => {
    const file = join(kit.workspace, 'notes.md');
    writeFileSync(file, '# notes\n');
    const opened = await kit.api.call('editor.readFile', { path: file });
    assert.equal(opened.contents, '# notes\n');
    assert.equal(opened.languageId, 'markdown');
    await kit.api.call('editor.setOpenEditors', { editors: [{ path: file, active: true, dirty: true, text: '# notes\nedited in the tab\n' }] });
    const tabs = jsonOf(await cli.callTool('getOpenEditors', {})).tabs;
    assert.deepEqual(tabs, [{ uri: pathToFileURL(file).href, isActive: true, label: 'notes.md', languageId: 'markdown', isDirty: true, isUntitled: false, fileName: file }]);
    assert.deepEqual(jsonOf(await cli.callTool('checkDocumentDirty', { filePath: file })), { success: true, filePath: file, isDirty: true, isUntitled: false });
    assert.deepEqual(jsonOf(await cli.callTool('checkDocumentDirty', { filePath: '/nope.txt' })), { success: false, message: 'Document not open: /nope.txt' });
    assert.deepEqual(jsonOf(await cli.callTool('saveDocument', { filePath: file })), { success: true, filePath: file, saved: true, message: 'Document saved successfully' });
    assert.equal((await kit.api.call('editor.readFile', { path: file })).contents, '# notes\nedited in the tab\n', 'saveDocument wrote the tab text');
    const saved = await pollUntil(() => events.find((entry) => entry.event === 'editor.saved' && entry.payload.path === file), { what: 'editor.saved' });
    assert.equal(saved.payload.contents, '# notes\nedited in the tab\n');
    assert.equal(jsonOf(await cli.callTool('checkDocumentDirty', { filePath: file })).isDirty, false);
  });

  it('saveDocument does not write over a file that changed on disk since the tab read it (as VS Code)', async () => {
    const file = join(kit.workspace, 'conflict.md');
    writeFileSync(file, 'v1\n');
    const opened = await kit.api.call('editor.readFile', { path: file });
    // Another program rewrites the file (a distinct mtime, whatever the file system's resolution).
    writeFileSync(file, 'v2 from elsewhere\n');
    utimesSync(file, new Date(), new Date(opened.mtimeMs + 5_000));

    // The UI does not say what its text is based on: the Hub's own read for the tab is the base.
    await kit.api.call('editor.setOpenEditors', { editors: [{ path: file, active: true, dirty: true, text: 'v1 edited in the tab\n' }] });
    const refused = jsonOf(await cli.callTool('saveDocument', { filePath: file }));
    assert.deepEqual([refused.success, refused.saved], [false, false]);
    assert.match(refused.message, /^Failed to save document: .*conflict\.md changed on disk since it was opened/);
    assert.equal(readFileSync(file, 'utf8'), 'v2 from elsewhere\n', 'the newer file is kept');
    assert.equal(jsonOf(await cli.callTool('checkDocumentDirty', { filePath: file })).isDirty, true, 'the tab keeps its unsaved text');

    // After the person reloads and merges, the tab's reported mtime is the current one: saved.
    const reloaded = await kit.api.call('editor.readFile', { path: file });
    await kit.api.call('editor.setOpenEditors', { editors: [{ path: file, active: true, dirty: true, text: 'v2, merged\n', mtimeMs: reloaded.mtimeMs }] });
    assert.equal(jsonOf(await cli.callTool('saveDocument', { filePath: file })).saved, true);
    assert.equal(readFileSync(file, 'utf8'), 'v2, merged\n');

    // A tab that reports an older base than the Hub's latest read is not saved over the newer file.
    await kit.api.call('editor.setOpenEditors', { editors: [{ path: file, active: true, dirty: true, text: 'stale tab text\n', mtimeMs: opened.mtimeMs }] });
    assert.equal(jsonOf(await cli.callTool('saveDocument', { filePath: file })).saved, false);
    assert.equal(readFileSync(file, 'utf8'), 'v2, merged\n');
  });

  it('openFile asks the UI to open a tab with the range selected', async () => {
    const file = join(kit.workspace, 'lines.py');
    writeFileSync(file, 'def a():\n    return 1\n\ndef b():\n    return 2\n');
    assert.deepEqual(texts(await cli.callTool('openFile', { filePath: file, startLine: 4, endLine: 5 })), [`Opened file: ${file}`]);
    const first = await pollUntil(() => events.find((entry) => entry.event === 'editor.openFile' && entry.payload.path === file), { what: 'editor.openFile' });
    assert.deepEqual(first.payload, { path: file, selection: { start: { line: 3, character: 0 }, end: { line: 4, character: 12 } }, preview: false, focus: true });
    const background = jsonOf(await cli.callTool('openFile', { filePath: file, startText: 'def b', endText: 'return 2', makeFrontmost: false }));
    assert.deepEqual(background, { success: true, filePath: file, languageId: 'python', lineCount: 6 });
    const second = events.filter((entry) => entry.event === 'editor.openFile').at(-1)!;
    assert.deepEqual(second.payload.selection, { start: { line: 3, character: 0 }, end: { line: 4, character: 12 } });
    assert.equal(second.payload.focus, false);
    const missing = await cli.callTool('openFile', { filePath: join(kit.workspace, 'missing.py') });
    assert.equal(missing.result.isError, true);
    assert.match(texts(missing)[0]!, /File not found/);
  });

  it('"Send to Claude" mentions a file to the Claude Code of that pane, and pastes text', async () => {
    const file = join(kit.workspace, 'greet.ts');
    assert.deepEqual(await kit.api.call('ide.sendToClaude', { terminalId: pane.terminalId, path: file, lineStart: 0, lineEnd: 1 }), { deliveredAs: 'at_mentioned' });
    const [mention] = await cli.waitForNotification('at_mentioned');
    assert.deepEqual(mention!.params, { filePath: file, lineStart: 0, lineEnd: 1 });

    const other = await kit.api.call('terminal.create', { ...bash, name: 'plain-pane', cwd: kit.workspace });
    // Pasted at the shell's prompt (text pasted while bash is still starting races its line editor's start).
    const otherSession = kit.hub.ptyHost.require(other.id);
    await pollUntil(async () => (await otherSession.readScreen()).lines.some((line) => /[$#]$/.test(line.trimEnd())) || null, { what: 'the shell prompt' });
    assert.deepEqual(await kit.api.call('ide.sendToClaude', { terminalId: other.id, path: file, lineStart: 2, lineEnd: 4 }), { deliveredAs: 'paste' });
    assert.deepEqual(await kit.api.call('ide.sendToClaude', { terminalId: other.id, text: 'pasted words' }), { deliveredAs: 'paste' });
    await pollUntil(async () => {
      const text = (await otherSession.readScreen()).lines.join('\n');
      return text.includes(`@${file}#L3-5 pasted words`) || null;
    }, { what: 'the pasted reference and text in the pane' });
    await assert.rejects(kit.api.call('ide.sendToClaude', { terminalId: other.id }), /give a path/);
    await assert.rejects(kit.api.call('ide.sendToClaude', { terminalId: 'nope', text: 'x' }), (error: ApiError) => error.code === 'NOT_FOUND');
  });

  it('"Reference in agent" from History types the pointer as text into a pane whose Claude Code is connected, never as an @-mention', async () => {
    // An @-mention makes Claude Code attach the file's whole content to the next message; the
    // transcript must enter the agent's context only when the agent reads it.
    const source = await kit.api.call('terminal.create', { ...bash, name: 'build-log', cwd: kit.workspace });
    await kit.api.call('terminal.write', { id: source.id, data: 'echo "referenced-$((5*5))"\r' });
    await pollUntil(async () => (await kit.hub.ptyHost.require(source.id).readScreen()).lines.join('\n').includes('referenced-25') || null, { what: 'output' });
    const sessionId = kit.hub.history.sessionOfTerminal(source.id);
    assert.ok(sessionId, 'the terminal is recorded');
    const referenced = await kit.api.call('history.reference', { items: [{ sessionId }], terminalId: pane.terminalId });
    assert.equal(referenced.deliveredTo, pane.terminalId);
    const path = referenced.files[0]!.path;
    await pollUntil(async () => (await kit.hub.ptyHost.require(pane.terminalId).readScreen()).lines.join('').replace(/\s/g, '').includes(path.replace(/\s/g, '')) || null, {
      what: 'the pointer typed into the pane',
    });
    assert.equal(cli.notifications.find((note) => note.method === 'at_mentioned' && note.params.filePath === path), undefined);
    assert.match(readFileSync(path, 'utf8'), /referenced-25/);
  });
});

describe('IDE bridge: several CLIs, disconnects and the upgrade guard', () => {
  let kit: IdeTestHub;
  let events: ReturnType<typeof recordReviewEvents>;

  before(async () => {
    kit = await startIdeHub();
    events = recordReviewEvents(kit);
  });
  after(async () => kit?.dispose());

  it('refuses a wrong or missing token, an Origin header and other subprotocols at the upgrade', async () => {
    assert.equal(await upgradeStatus(kit.port, { token: 'f'.repeat(32) }), 401);
    assert.equal(await upgradeStatus(kit.port, {}), 401);
    assert.equal(await upgradeStatus(kit.port, { token: kit.lock.authToken, headers: { Origin: 'http://evil.example' } }), 403);
    assert.equal(await upgradeStatus(kit.port, { token: kit.lock.authToken, protocol: 'graphql-ws' }), 400);
    assert.equal(await upgradeStatus(kit.port, { token: kit.lock.authToken, protocol: null }), 400);
    const plainHttp = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: kit.port, path: '/' }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(plainHttp, 426);
    assert.equal(await upgradeStatus(kit.port, { token: kit.lock.authToken }), 101, 'the right token still gets in');
  });

  it('keeps reviews of two CLIs apart: closeAllDiffTabs and a disconnect touch only their own', async () => {
    const a = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    const b = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    await a.handshake(process.pid);
    await b.handshake(process.pid);
    const fileA = join(kit.workspace, 'a.txt');
    const fileB = join(kit.workspace, 'b.txt');
    const replyA = a.callTool('openDiff', { old_file_path: fileA, new_file_path: fileA, new_file_contents: 'from a\n', tab_name: 'tab' });
    const replyB = b.callTool('openDiff', { old_file_path: fileB, new_file_path: fileB, new_file_contents: 'from b\n', tab_name: 'tab' });
    const reviewA = await pendingReview(kit, (summary) => summary.path === fileA);
    const reviewB = await pendingReview(kit, (summary) => summary.path === fileB);
    const state = await kit.api.call('ide.getState', {});
    assert.deepEqual(state.clients.map((client) => client.pendingReviews).sort(), [1, 1]);

    // A CLI reconnecting calls closeAllDiffTabs; another CLI's review with the same tab name stays.
    const extra = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    await extra.handshake(process.pid);
    assert.deepEqual(texts(await extra.callTool('closeAllDiffTabs', {})), ['CLOSED_0_DIFF_TABS']);
    await extra.close();
    assert.deepEqual((await kit.api.call('review.list', { decidedLimit: 0 })).pending.map((summary) => summary.id).sort(), [reviewA.id, reviewB.id].sort());

    // A disconnect withdraws that CLI's reviews only.
    a.socket.terminate();
    await pollUntil(() => events.find((entry) => entry.event === 'review.removed' && entry.payload.id === reviewA.id), { what: 'A withdrawn' });
    assert.equal(events.find((entry) => entry.event === 'review.removed' && entry.payload.id === reviewA.id)!.payload.reason, 'requester-gone');
    void replyA.catch(() => {});
    assert.deepEqual((await kit.api.call('review.list', { decidedLimit: 0 })).pending.map((summary) => summary.id), [reviewB.id]);

    await kit.api.call('review.decide', { id: reviewB.id, decision: 'accept' });
    assert.deepEqual(texts(await replyB), ['FILE_SAVED', 'from b\n']);
    assert.deepEqual(texts(await b.callTool('closeAllDiffTabs', {})), ['CLOSED_0_DIFF_TABS']);

    const c = b.callTool('openDiff', { old_file_path: fileA, new_file_path: fileA, new_file_contents: '1\n', tab_name: 't1' });
    const d = b.callTool('openDiff', { old_file_path: fileB, new_file_path: fileB, new_file_contents: '2\n', tab_name: 't2' });
    await pollUntil(async () => (await kit.api.call('review.list', { decidedLimit: 0 })).pending.length === 2 || null, { what: 'two pending reviews' });
    assert.deepEqual(texts(await b.callTool('closeAllDiffTabs', {})), ['CLOSED_2_DIFF_TABS']);
    assert.deepEqual(texts(await c), ['DIFF_REJECTED', 't1']);
    assert.deepEqual(texts(await d), ['DIFF_REJECTED', 't2']);
    await b.close();
    await pollUntil(async () => (await kit.api.call('ide.getState', {})).clients.length === 0 || null, { what: 'all clients gone' });
  });

  it('echoes an older protocol version and falls back for a malformed one', async () => {
    const older = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    assert.equal((await older.handshake(process.pid, { protocolVersion: '2024-11-05' })).protocolVersion, '2024-11-05');
    await older.close();
    const odd = await FakeClaudeCli.connect(kit.port, kit.lock.authToken);
    assert.equal((await odd.handshake(process.pid, { protocolVersion: 'latest please' })).protocolVersion, '2024-11-05');
    await odd.close();
  });
});
