/**
 * Reviewing agents' changes in real Chromium against `switchboard serve`: an agent asks for a
 * review over the control socket (`review.request`, which blocks until a person decides), the
 * review shows in the Review view with its count in the sidebar and the window title, and the
 * requester gets exactly what the person decided — their edits, a composition of the changes they
 * kept, a rejection with their comment.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, readPane, typeInPane, useSharedBrowser, waitForPaneText, type ServedApp } from '../helpers/servedApp.ts';
import { FakeClaudeCli, jsonOf } from '../integration/ide/ideTestKit.ts';

const browser = useSharedBrowser();

/** A reviewer may take a while on a loaded machine; the request waits that long. */
const reviewTimeoutMs = 120_000;

/** Thirty numbered lines: edits to lines far apart are separate changes. */
const original = Array.from({ length: 30 }, (_, index) => `export const line${index + 1} = ${index + 1};`).join('\n') + '\n';

function withLines(text: string, replacements: Record<number, string>): string {
  const lines = text.split('\n');
  for (const [number, replacement] of Object.entries(replacements)) lines[Number(number) - 1] = replacement;
  return lines.join('\n');
}

function agentFor(app: { dataDir: string }, t: TestContext): ControlClient {
  const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
  t.after(() => agent.dispose());
  return agent;
}

/** Ask for a review; resolves with the requester's answer once a person decided. */
function requestReview(agent: ControlClient, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = agent.request('review.request', fields, { timeoutMs: reviewTimeoutMs });
  // Observed by the test later; an early failure must not go unhandled meanwhile.
  answer.catch(() => {});
  return answer;
}

async function waitForTitle(page: Page, title: string): Promise<void> {
  await pollUntil(async () => (await page.title()) === title, { timeoutMs: 15_000, what: `the window title "${title}"` });
}

async function openReview(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Review', exact: true }).click();
  await page.getByRole('region', { name: 'Review', exact: true }).waitFor();
}

/** The review detail on screen, once its diff editor is up. */
async function shownReview(page: Page, title: string) {
  const detail = page.getByRole('article', { name: `Review of ${title}` });
  await detail.waitFor();
  return detail;
}

/** A client that speaks to the app's IDE bridge as the `claude` CLI does, found through its lock file. */
async function connectClaude(app: ServedApp, t: TestContext): Promise<FakeClaudeCli> {
  const lockDir = join(app.home, '.claude', 'ide');
  const lockName = await pollUntil(
    () => {
      try {
        return readdirSync(lockDir).find((name) => name.endsWith('.lock'));
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 15_000, what: 'the IDE lock file' },
  );
  const lock = JSON.parse(readFileSync(join(lockDir, lockName), 'utf8')) as { authToken: string };
  const cli = await FakeClaudeCli.connect(Number(lockName.slice(0, -'.lock'.length)), lock.authToken);
  t.after(() => cli.close());
  return cli;
}

describe('Review view', () => {
  it('counts pending reviews, sends the edited proposal on Accept and the comment on Reject', async (t) => {
    const { app, page } = await openFreshApp(browser(), t, { workspaceFiles: { 'config.ts': original, 'notes.md': '# Notes\n\nkeep\n' } });
    const agent = agentFor(app, t);
    const proposed = withLines(original, { 5: 'export const line5 = 500;' });
    const first = requestReview(agent, { path: join(app.workspace, 'config.ts'), newContents: proposed, title: 'Tune line 5' });
    await waitForTitle(page, '(1) Switchboard');
    const badge = page.locator('.nav-button .review-count-badge');
    assert.equal(await badge.innerText(), '1');

    // One at a time, so the list's order (oldest first) is known.
    const second = requestReview(agent, { path: join(app.workspace, 'notes.md'), newContents: '# Notes\n\nthrow away\n', from: 'note-bot' });
    await waitForTitle(page, '(2) Switchboard');
    const outside = requestReview(agent, { path: join(app.home, 'elsewhere.txt'), newContents: 'hello\n', title: 'Outside' });
    await waitForTitle(page, '(3) Switchboard');
    assert.equal(await badge.innerText(), '3');

    await openReview(page);
    const pendingList = page.getByRole('region', { name: 'Pending', exact: true });
    await pollUntil(async () => (await pendingList.locator('[data-review-id]').count()) === 3, { what: 'three pending reviews' });
    const firstItem = pendingList.locator('[data-review-id]').first();
    assert.match(await firstItem.innerText(), /Tune line 5[\s\S]*config\.ts[\s\S]*e2e-agent over the control socket/);
    // A path outside every workspace folder is flagged.
    const outsideItem = pendingList.locator('[data-review-id]', { hasText: 'Outside' });
    await outsideItem.getByText('outside workspace').waitFor();

    // The oldest review is shown; the person changes one line of the proposal, then accepts.
    const detail = await shownReview(page, 'Tune line 5');
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'review.png') });
    const proposedSide = detail.getByRole('textbox', { name: 'Proposed contents' });
    const line = proposedSide.locator('.cm-line', { hasText: 'export const line5 = 500;' });
    await line.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.type('export const line5 = 555; // reviewed');
    await detail.locator('.review-edited-tag').waitFor();
    await detail.getByRole('button', { name: 'Accept', exact: true }).click();

    const accepted = await first;
    assert.equal(accepted.decision, 'accepted');
    assert.equal(accepted.edited, true);
    assert.equal(accepted.by, 'you');
    assert.equal(accepted.finalContents, withLines(original, { 5: 'export const line5 = 555; // reviewed' }));
    await waitForTitle(page, '(2) Switchboard');
    assert.equal(await badge.innerText(), '2');
    const decidedList = page.getByRole('region', { name: 'Decided', exact: true });
    await decidedList.locator('[data-state="accepted"]', { hasText: 'Accepted with edits by you' }).waitFor();

    // The next review comes up by itself; it is rejected with a comment.
    const notes = await shownReview(page, 'notes.md');
    await notes.getByRole('textbox', { name: 'Comment' }).fill('Keep the note as it is.');
    await notes.getByRole('button', { name: 'Reject', exact: true }).click();
    const rejected = await second;
    assert.equal(rejected.decision, 'rejected');
    assert.equal(rejected.comment, 'Keep the note as it is.');
    await decidedList.locator('[data-state="rejected"]', { hasText: 'Rejected by you' }).waitFor();

    await (await shownReview(page, 'Outside')).getByRole('button', { name: 'Reject', exact: true }).click();
    assert.equal((await outside).decision, 'rejected');
    await waitForTitle(page, 'Switchboard');
    assert.equal(await badge.count(), 0);

    // A decided review shows what was written, read-only.
    await decidedList.locator('[data-state="accepted"]').click();
    const decided = await shownReview(page, 'Tune line 5');
    await decided.getByText(/Accepted with edits by you/).waitFor();
    await decided.getByRole('textbox', { name: 'Proposed contents' }).locator('.cm-line', { hasText: 'export const line5 = 555; // reviewed' }).waitFor();
    assert.equal(await decided.getByRole('button', { name: 'Accept', exact: true }).count(), 0);
  });

  it('shows a diff unified while the window is too narrow for two sides, and side by side when asked or wide again', async (t) => {
    const { app, page } = await openFreshApp(browser(), t, { workspaceFiles: { 'config.ts': original } });
    const agent = agentFor(app, t);
    const answer = requestReview(agent, { path: join(app.workspace, 'config.ts'), newContents: withLines(original, { 5: 'export const line5 = 500;' }), title: 'Narrow' });
    await openReview(page);
    const detail = await shownReview(page, 'Narrow');
    const layout = detail.getByRole('radiogroup', { name: 'Diff layout' });
    const isChecked = async (name: string) => (await layout.getByRole('radio', { name }).getAttribute('aria-checked')) === 'true';
    const sides = () => detail.locator('.cm-mergeView').count();
    assert.ok(await isChecked('Side by side'));
    assert.equal(await sides(), 1);

    await page.setViewportSize({ width: 1000, height: 800 });
    await pollUntil(async () => (await isChecked('Unified')) && (await sides()) === 0, { what: 'the unified layout in a narrow window' });
    await detail.getByText('unified: too narrow for side by side').waitFor();
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'review-narrow-unified.png') });
    // Still the whole review: the change, its buttons and the decision.
    await detail.getByRole('textbox', { name: 'Proposed contents' }).locator('.cm-line', { hasText: 'export const line5 = 500;' }).waitFor();
    // A click on Unified, already shown, does not make it the lasting choice: wide again, side by side.
    await layout.getByRole('radio', { name: 'Unified' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await pollUntil(async () => (await isChecked('Side by side')) && (await sides()) === 1, { what: 'side by side when wide again' });
    await page.setViewportSize({ width: 1000, height: 800 });
    await pollUntil(async () => (await sides()) === 0, { what: 'unified when narrow again' });

    // Asked for, side by side shows even when narrow.
    await layout.getByRole('radio', { name: 'Side by side' }).click();
    await pollUntil(async () => (await isChecked('Side by side')) && (await sides()) === 1, { what: 'side by side on request' });
    assert.equal(await detail.getByText('unified: too narrow for side by side').count(), 0);

    // The person's choice stays side by side: wide again, it is side by side; narrow again, unified again.
    const narrowSeen = (narrow: boolean) => detail.locator(`.review-toolbar[data-narrow="${narrow}"]`).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    // Side by side shows either way: wait until the wide width was seen, not only set.
    await narrowSeen(false);
    await pollUntil(async () => (await sides()) === 1, { what: 'side by side when wide' });
    await page.setViewportSize({ width: 1000, height: 800 });
    await pollUntil(async () => (await sides()) === 0, { what: 'unified when narrow again' });

    await detail.getByRole('button', { name: 'Reject', exact: true }).click();
    assert.equal((await answer).decision, 'rejected');
  });

  it('composes the file from the changes the person kept', async (t) => {
    const { app, page } = await openFreshApp(browser(), t, { workspaceFiles: { 'three.ts': original } });
    const agent = agentFor(app, t);
    const proposed = withLines(original, { 3: 'export const line3 = 300;', 15: 'export const line15 = 1500;', 27: 'export const line27 = 2700;' });
    const answer = requestReview(agent, { path: join(app.workspace, 'three.ts'), newContents: proposed, title: 'Three changes' });
    await waitForTitle(page, '(1) Switchboard');
    await openReview(page);
    const detail = await shownReview(page, 'Three changes');
    await pollUntil(async () => (await detail.locator('.cm-merge-b .cm-hunkHeader').count()) === 3, { what: 'three changes on the proposed side' });

    await detail.getByRole('button', { name: 'Accept change 1' }).click();
    await detail.getByRole('button', { name: 'Accept change 3' }).click();
    await detail.getByRole('button', { name: 'Reject change 2' }).click();
    // Rejecting a change puts the original lines back: two changes are left, both accepted.
    await pollUntil(async () => (await detail.locator('.cm-merge-b .cm-hunkHeader').count()) === 2, { what: 'the rejected change to go' });
    assert.equal(await detail.locator('.cm-merge-b .cm-hunkHeader[data-accepted]').count(), 2);
    assert.match(await detail.locator('.review-change-status').innerText(), /2 accepted/);

    await detail.getByRole('button', { name: 'Accept', exact: true }).click();
    const accepted = await answer;
    assert.equal(accepted.decision, 'accepted');
    assert.equal(accepted.finalContents, withLines(original, { 3: 'export const line3 = 300;', 27: 'export const line27 = 2700;' }));

    // The decided review counts the two changes made, not the three proposed (+3 −3), here and after a reload.
    const decidedItem = page.getByRole('region', { name: 'Decided', exact: true }).locator('[data-review-id]', { hasText: 'Three changes' });
    await decidedItem.getByLabel('2 lines added, 2 removed').waitFor();
    await decidedItem.click();
    const decided = await shownReview(page, 'Three changes');
    assert.equal(await decided.locator('.review-detail-stats').innerText(), '+2 −2');
    await page.reload();
    // The reload keeps the window on Review.
    await page.getByRole('region', { name: 'Review', exact: true }).waitFor();
    await page.getByRole('region', { name: 'Decided', exact: true }).locator('[data-review-id]', { hasText: 'Three changes' }).getByLabel('2 lines added, 2 removed').waitFor();
  });

  it('shows a new file and a binary file, and accepts with Ctrl+Enter', async (t) => {
    const { app, page } = await openFreshApp(browser(), t);
    const agent = agentFor(app, t);
    const readme = '# Hello\n\nA new file, proposed by an agent.\n';
    const created = requestReview(agent, { path: join(app.workspace, 'README.md'), newContents: readme });
    await waitForTitle(page, '(1) Switchboard');
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    const binary = requestReview(agent, { path: join(app.workspace, 'logo.png'), newContents: bytes.toString('base64'), encoding: 'base64', title: 'New logo' });
    await waitForTitle(page, '(2) Switchboard');
    await openReview(page);

    // The new file: nothing on the original side, every line proposed.
    const detail = await shownReview(page, 'README.md');
    await detail.getByText('new file', { exact: true }).waitFor();
    const proposedSide = detail.getByRole('textbox', { name: 'Proposed contents' });
    await proposedSide.locator('.cm-line', { hasText: 'A new file, proposed by an agent.' }).waitFor();
    assert.equal((await detail.getByRole('textbox', { name: 'Original contents' }).innerText()).trim(), '');
    // Ctrl+Enter accepts what is shown, from the keyboard.
    await proposedSide.click();
    await page.keyboard.press('Control+Enter');
    const accepted = await created;
    assert.equal(accepted.decision, 'accepted');
    assert.equal(accepted.edited, false);
    assert.equal(accepted.finalContents, readme);

    // The binary file: its size, no diff, Accept and Reject only.
    const logo = await shownReview(page, 'New logo');
    await logo.getByText('binary file, 12 bytes').waitFor();
    assert.equal(await logo.locator('.cm-editor').count(), 0);
    await logo.getByRole('button', { name: 'Accept', exact: true }).click();
    const acceptedBinary = await binary;
    assert.equal(acceptedBinary.decision, 'accepted');
    assert.equal(acceptedBinary.finalContentsBase64, bytes.toString('base64'));
    await waitForTitle(page, 'Switchboard');
  });

  it('opens Claude Code’s files in tabs, shares edits and selections, and sends a selection to Claude', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t, { workspaceFiles: { 'app.ts': original } });
    const filePath = join(app.workspace, 'app.ts');
    const [terminal] = await agentFor(app, t).list();
    const cli = await connectClaude(app, t);
    // Claude Code says its pid is the pane's shell: that pane has Claude Code.
    await cli.handshake(terminal!.pid!);
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-header .claude-badge`, { hasText: 'Claude Code connected' }).waitFor();

    // openFile: a tab in the Review view with lines 10–12 selected, which Claude Code can read back.
    await cli.callTool('openFile', { filePath, startLine: 10, endLine: 12 });
    const panel = page.getByRole('region', { name: 'File app.ts' });
    await panel.locator('.cm-line', { hasText: 'export const line10 = 10;' }).waitFor();
    await pollUntil(
      async () => {
        const selection = jsonOf(await cli.callTool('getCurrentSelection', {}));
        return selection.success && selection.text === 'export const line10 = 10;\nexport const line11 = 11;\nexport const line12 = 12;' ? selection : null;
      },
      { timeoutMs: 15_000, what: 'the opened range as the current selection' },
    );

    // An edit makes the tab dirty (for Claude Code too); Ctrl+S saves it.
    await panel.locator('.cm-line', { hasText: 'export const line20 = 20;' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' // saved from the tab');
    await page.locator(`[data-file-tab="${filePath}"] .file-tab-dirty`).waitFor();
    await pollUntil(async () => jsonOf(await cli.callTool('checkDocumentDirty', { filePath })).isDirty === true, { what: 'Claude Code to see the tab dirty' });
    await page.keyboard.press('Control+s');
    await pollUntil(() => readFileSync(filePath, 'utf8') === withLines(original, { 20: 'export const line20 = 20; // saved from the tab' }), { what: 'the file saved' });
    await pollUntil(async () => jsonOf(await cli.callTool('checkDocumentDirty', { filePath })).isDirty === false, { what: 'the tab clean again' });

    // A selection made by the person reaches Claude Code; Send to Claude mentions those lines.
    await panel.locator('.cm-line', { hasText: 'export const line25 = 25;' }).click({ clickCount: 3 });
    const changed = await cli.waitForNotification('selection_changed');
    await pollUntil(() => cli.notifications.some((note) => note.method === 'selection_changed' && note.params.text.includes('export const line25 = 25;')), {
      what: `selection_changed with line 25 (got ${changed.length})`,
    });
    await panel.getByRole('button', { name: 'Send to Claude' }).click();
    const [mention] = await cli.waitForNotification('at_mentioned');
    assert.deepEqual(mention!.params, { filePath, lineStart: 24, lineEnd: 24 });
    // Then the person is taken to Claude Code's pane to write the prompt.
    await page.locator(`[data-terminal-id="${firstPane}"]`).waitFor({ state: 'visible' });
    // The Review view goes as the pane comes (the same render, or the next one).
    await page.getByRole('region', { name: 'Review', exact: true }).waitFor({ state: 'detached', timeout: 5_000 });

    // A pane selection goes as text, pasted into Claude Code's prompt (here: the same pane's shell).
    await typeInPane(page, firstPane, 'echo marker-$((40+2))');
    await waitForPaneText(page, firstPane, 'marker-42');
    const row = page.locator(`[data-terminal-id="${firstPane}"] .xterm-rows > div`).filter({ hasText: /^marker-42/ });
    const box = (await row.boundingBox())!;
    await page.mouse.click(box.x + 20, box.y + box.height / 2, { clickCount: 3 });
    await pollUntil(() => cli.notifications.some((note) => note.method === 'selection_changed' && note.params.text.includes('marker-42')), {
      what: 'the pane selection to reach Claude Code',
    });
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-send-chip`).getByRole('button', { name: 'Send to Claude' }).click();
    await pollUntil(async () => /\$ marker-42\s*$/.test((await readPane(page, firstPane))?.trimEnd() ?? ''), { what: 'the selection pasted at the prompt' });
  });
});
