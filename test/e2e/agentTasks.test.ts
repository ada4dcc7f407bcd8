/**
 * Tasks agents hand each other (claws' task registry) in the Activity view, in real Chromium
 * against `switchboard serve`: a task assigned over the control socket appears with who assigned
 * it, the assignee and its terminal; its status, progress, note and result update live; a worker
 * that disconnects fails its open task; a reload shows the same. The view fits at 1280×800 and
 * 1000×700 in light and dark (no header overlaps, nothing wider than the view). To look at it:
 * SWITCHBOARD_SCREENSHOTS=/tmp/some/dir node --test test/e2e/agentTasks.test.ts
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { NdjsonClient, type Frame } from '../integration/control/controlTestKit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, useSharedBrowser, waitForPanes } from '../helpers/servedApp.ts';

const browser = useSharedBrowser({ showScrollbars: true });
const shots = process.env.SWITCHBOARD_SCREENSHOTS;

async function v2(client: NdjsonClient, request: Frame): Promise<Frame> {
  const response = await client.request({ protocol: 'claws/2', ...request });
  assert.equal(response.ok, true, `${request.cmd}: ${response.error}`);
  return response;
}

describe('agent tasks in the Activity view', () => {
  it('shows a task assigned over the socket and follows its status and result live', async (t) => {
    const { app, page } = await openFreshApp(browser(), t);
    const socketPath = join(app.dataDir, 'control.sock');
    const boss = await NdjsonClient.connect(socketPath);
    const worker = await NdjsonClient.connect(socketPath);
    const quitter = await NdjsonClient.connect(socketPath);
    t.after(() => [boss, worker, quitter].forEach((client) => client.close()));

    const created = await boss.request({ cmd: 'create', name: 'docs-worker' });
    assert.equal(created.ok, true, created.error);
    const workerTerminal = String(created.id);
    await waitForPanes(page, 2);
    await v2(boss, { cmd: 'hello', role: 'orchestrator', peerName: 'mcp-orchestrator' });
    const workerId = (await v2(worker, { cmd: 'hello', role: 'worker', peerName: 'docs-builder', terminalId: workerTerminal })).peerId as string;
    const quitterId = (await v2(quitter, { cmd: 'hello', role: 'worker', peerName: 'flaky-worker' })).peerId as string;

    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const view = page.getByRole('region', { name: 'Activity' });
    await view.waitFor();
    const table = view.getByRole('table', { name: 'Agent tasks' });

    const prompt = 'Build the API reference with npm run docs, then check every link in docs/ and report the pages that fail.';
    const { taskId } = await v2(boss, { cmd: 'task.assign', title: 'Build the docs', assignee: workerId, prompt });
    await table.locator(`tr[data-task-id="${taskId}"]`).waitFor();
    const [what, by, assignee, status, result] = await rowOf(table, taskId);
    assert.equal(what, `Build the docs | ${taskId} ${prompt}`);
    assert.match(by!, /^mcp-orchestrator \| \d\d:\d\d:\d\d$/);
    assert.equal(assignee, 'docs-builder | docs-worker');
    assert.equal(status, 'pending');
    assert.equal(result, '…');
    assert.equal(await view.locator('.activity-section-header .activity-count').innerText(), '1 task · 1 open');

    await v2(worker, { cmd: 'task.update', taskId, status: 'running', progressPct: 40, note: 'building pages' });
    await pollUntil(async () => (await rowOf(table, taskId))[3] === 'running 40% | building pages', { what: 'the running status with progress and note' });

    await v2(worker, { cmd: 'task.complete', taskId, status: 'succeeded', result: { pages: 12, brokenLinks: 0 }, artifacts: [{ type: 'dir', path: '/srv/docs/api' }] });
    await pollUntil(async () => (await rowOf(table, taskId))[3] === 'succeeded | building pages', { what: 'the task to succeed' });
    assert.equal((await rowOf(table, taskId))[4], '{"pages":12,"brokenLinks":0} | /srv/docs/api');

    // The assignee's terminal is a link to its pane.
    await table.locator(`tr[data-task-id="${taskId}"]`).getByRole('button', { name: 'docs-worker' }).waitFor();

    // A second task, cancelled, and a third whose worker goes away: both shown as they end.
    const second = (await v2(boss, { cmd: 'task.assign', title: 'Translate the README', assignee: workerId, prompt: 'Translate README.md to French.' })).taskId as string;
    await v2(boss, { cmd: 'task.cancel', taskId: second, reason: 'not needed any more' });
    await pollUntil(async () => (await rowOf(table, second))[3] === 'pending | cancel requested: not needed any more', { what: 'the cancel request' });
    const third = (await v2(boss, { cmd: 'task.assign', title: 'Run the flaky suite', assignee: quitterId, prompt: 'npm run test:flaky' })).taskId as string;
    await table.locator(`tr[data-task-id="${third}"]`).waitFor();
    quitter.close();
    await pollUntil(async () => (await rowOf(table, third))[3] === 'failed | assignee disconnected', { what: 'the task of the worker that left to fail' });
    assert.deepEqual(
      await table.locator('tbody tr').evaluateAll((rows) => rows.map((element) => element.getAttribute('data-task-id'))),
      [third, second, taskId],
      'newest first',
    );
    assert.equal(await view.locator('.activity-section-header .activity-count').innerText(), '3 tasks · 1 open');

    // It fits, at both sizes and in both themes: no header overlaps, nothing wider than the view.
    for (const size of [
      { width: 1280, height: 800 },
      { width: 1000, height: 700 },
    ]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        await pollUntil(() => page.evaluate((wanted) => document.documentElement.dataset.theme === wanted, scheme), { what: `the ${scheme} theme` });
        assert.deepEqual(await overflows(page), [], `${size.width}x${size.height} ${scheme}`);
        if (shots) await page.screenshot({ path: join(shots, `activity-tasks-${size.width}x${size.height}-${scheme}.png`) });
      }
    }

    // After a reload the view shows the same tasks (from tasks.list).
    await page.reload();
    // A reload brings the window back on the view it showed; click Activity if it did not.
    await page.getByRole('region', { name: 'Activity' }).waitFor({ timeout: 5_000 }).catch(async () => {
      await page.getByRole('button', { name: 'Activity', exact: true }).click();
    });
    const reloaded = page.getByRole('region', { name: 'Activity' }).getByRole('table', { name: 'Agent tasks' });
    await reloaded.locator(`tr[data-task-id="${third}"]`).waitFor();
    assert.equal((await rowOf(reloaded, taskId))[3], 'succeeded | building pages');
  });
});

/** Each cell of a task's row: its lines joined by ' | ', as a person reads them. */
async function rowOf(table: Locator, taskId: string): Promise<Array<string>> {
  const cells = await table
    .locator(`tbody tr[data-task-id="${taskId}"] td`)
    .evaluateAll((elements) => elements.map((cell) => (cell as HTMLElement).innerText.replace(/\s*\n\s*/g, ' | ').trim()));
  return cells;
}

/** Header cells that overlap, and a view body wider than its box. */
function overflows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const body = document.querySelector('.view-page .view-body') as HTMLElement | null;
    if (body && body.scrollWidth > body.clientWidth + 1) problems.push(`view body ${body.scrollWidth}px wide in ${body.clientWidth}px`);
    for (const table of document.querySelectorAll('.view-page table')) {
      const cells = [...table.querySelectorAll('thead th')];
      for (let index = 1; index < cells.length; index++) {
        const before = cells[index - 1]!.getBoundingClientRect();
        const here = cells[index]!.getBoundingClientRect();
        if (before.right > here.left + 0.5 || here.width < 40) problems.push(`${cells[index - 1]!.textContent} / ${cells[index]!.textContent}`);
      }
    }
    return problems;
  });
}
