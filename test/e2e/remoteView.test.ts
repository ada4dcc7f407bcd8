/**
 * The remote view end to end: a real `switchboard relay` and a real `switchboard serve --relay …
 * --share-all` (two child processes), the machine's own UI in one Chromium page and the relay's
 * remote view of it in another. Typing in the remote page shows in both; a terminal opened in the
 * remote page is a pane marked remote in the local UI; a review accepted remotely resolves the
 * local review; the machine going offline shows a banner and the view comes back with it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { RelayTokenStore } from '../../src/node/relay/server/relayTokens.ts';
import { pollUntil } from '../helpers/poll.ts';
import { machineId, openRemote, slow, startRemoteSetup, stop } from '../helpers/remoteRelay.ts';
import { newPage, openApp, paneIds, shootEverySize, typeInPane, useSharedBrowser, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

function remoteSidebar(page: Page) {
  return page.getByRole('navigation', { name: 'Sidebar' });
}

describe('remote view through switchboard relay', () => {
  it('shows the machine\'s shared pane; typing in the remote page shows in both pages', async (t) => {
    const setup = await startRemoteSetup(t);
    const local = await newPage(t, browser());
    const localPane = await openApp(local, setup.serve.url);

    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);
    // The token left the address bar; the name stayed.
    assert.equal(remote.url(), `${setup.relay.viewOrigin}/m/${machineId}/?name=phone`);
    const sidebar = remoteSidebar(remote);
    await sidebar.getByText('remote', { exact: true }).waitFor();
    assert.equal(await sidebar.locator('.remote-machine-name').innerText(), machineId);
    // What the relay cannot carry is not offered.
    for (const hidden of ['Activity', 'History', 'Settings']) assert.equal(await sidebar.getByRole('button', { name: hidden, exact: true }).count(), 0, hidden);

    const item = sidebar.locator(`[data-terminal-item="${localPane}"]`);
    await item.waitFor();
    await item.getByRole('button').first().click();
    await waitForPanes(remote, 1);
    await waitForPaneText(remote, localPane, '$', slow);

    await typeInPane(remote, localPane, 'echo from-remote-$((6*7))');
    await waitForPaneText(remote, localPane, 'from-remote-42', slow);
    await waitForPaneText(local, localPane, 'from-remote-42', slow);

    await typeInPane(local, localPane, 'echo from-local-$((5+5))');
    await waitForPaneText(remote, localPane, 'from-local-10', slow);
    await remote.screenshot({ path: join(setup.dirs.home, 'remote-view.png') });
  });

  it('"New terminal" in the remote page opens a terminal on the machine, shown in the local UI marked remote', async (t) => {
    const setup = await startRemoteSetup(t);
    const local = await newPage(t, browser());
    const localPane = await openApp(local, setup.serve.url);
    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);
    await remoteSidebar(remote).locator(`[data-terminal-item="${localPane}"]`).waitFor();

    await remote.getByRole('button', { name: 'New terminal' }).click();
    const opened = await pollUntil(async () => (await paneIds(remote)).find((id) => id !== localPane), { timeoutMs: 20_000, what: 'the new remote pane' });
    await waitForPaneText(remote, opened, '$', slow);
    await remoteSidebar(remote).locator(`[data-terminal-item="${opened}"][data-opened-here]`).getByText('here', { exact: true }).waitFor();

    // The machine's own UI lists it, marked remote and by whom.
    const localItem = local.locator(`[data-terminal-item="${opened}"][data-created-by="remote"]`);
    await localItem.waitFor({ timeout: 20_000 });
    assert.match(await localItem.innerText(), /via phone \(remote\)/);

    await typeInPane(remote, opened, 'echo opened-remotely-$((3*3))');
    await waitForPaneText(remote, opened, 'opened-remotely-9', slow);
    await localItem.getByRole('button').first().click();
    await waitForPaneText(local, opened, 'opened-remotely-9', slow);
  });

  it('a terminal opened in the remote page has one name, in the remote page and in the app', async (t) => {
    // Not sharing every pane: the remote page learns of its terminal only from the machine's answer.
    const setup = await startRemoteSetup(t, {}, { shareAll: false });
    const local = await newPage(t, browser());
    const localPane = await openApp(local, setup.serve.url);
    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);
    await remote.getByRole('button', { name: 'New terminal' }).click();
    const [opened] = await waitForPanes(remote, 1);
    await waitForPaneText(remote, opened!, '$', slow);
    const localName = local.locator(`[data-terminal-item="${opened}"] .name-text`);
    await localName.waitFor({ timeout: 20_000 });
    const remoteName = remote.locator(`[data-terminal-item="${opened}"] .name-text`);
    assert.notEqual(opened, localPane);
    // The app numbers it beside its own bash pane; the remote page says the same.
    assert.equal(await localName.innerText(), 'bash 2');
    assert.equal(await remoteName.innerText(), 'bash 2');
    assert.equal(await remote.locator('.tab-title').first().innerText(), 'bash 2');
    const shots = process.env.SWITCHBOARD_SCREENSHOTS;
    if (shots) await remote.screenshot({ path: join(shots, 'remote-opened-name.png') });
    if (shots) await local.screenshot({ path: join(shots, 'local-remote-opened-name.png') });
  });

  it('a review accepted in the remote page resolves the review on the machine', async (t) => {
    const setup = await startRemoteSetup(t, { 'config.txt': 'alpha\nbeta\ngamma\n' });
    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);

    const agent = new ControlClient({ socketPath: join(setup.dirs.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    const path = join(setup.dirs.workspace, 'config.txt');
    const answer = agent.request('review.request', { path, newContents: 'alpha\nBETA\ngamma\n', title: 'Shout beta' }, { timeoutMs: 120_000 });
    answer.catch(() => {});

    const sidebar = remoteSidebar(remote);
    await sidebar.locator('.remote-badge', { hasText: '1' }).waitFor({ timeout: 20_000 });
    await sidebar.getByRole('button', { name: /Reviews/ }).click();
    const card = remote.locator('.remote-review', { hasText: 'Shout beta' });
    await card.waitFor();
    assert.match(await card.innerText(), /config\.txt/);
    await card.locator('.remote-diff-line[data-kind="remove"]', { hasText: '-beta' }).waitFor();
    await card.locator('.remote-diff-line[data-kind="add"]', { hasText: '+BETA' }).waitFor();
    await remote.screenshot({ path: join(setup.dirs.home, 'remote-review.png') });
    await card.getByRole('button', { name: 'Accept', exact: true }).click();

    const decided = await answer;
    assert.equal(decided.decision, 'accepted');
    assert.equal(decided.by, 'phone', 'decided by the viewer, as the relay named it');
    assert.equal(decided.finalContents, 'alpha\nBETA\ngamma\n', 'the proposal, as the person at the machine would have accepted it');
    // The machine confirmed it: the review leaves the pending list for the decided one.
    await remote.locator('.remote-settled-item[data-outcome="accepted"]', { hasText: 'Accepted by phone' }).waitFor({ timeout: 20_000 });
    assert.equal(await remote.locator('.remote-review').count(), 0);
  });

  it('dates reviews from when they were opened, keeps their ages current, and says who writes the file on Accept', async (t) => {
    const setup = await startRemoteSetup(t, { 'config.txt': 'alpha\nbeta\ngamma\n', 'notes.txt': 'one\n' });
    const agent = new ControlClient({ socketPath: join(setup.dirs.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    const requests = [
      agent.request('review.request', { path: join(setup.dirs.workspace, 'config.txt'), newContents: 'alpha\nBETA\ngamma\n', title: 'Shout beta' }, { timeoutMs: 120_000 }),
      agent.request('review.request', { path: join(setup.dirs.workspace, 'notes.txt'), newContents: 'one\ntwo\n', title: 'Add two', apply: true }, { timeoutMs: 120_000 }),
    ];
    for (const request of requests) request.catch(() => {});

    // The reviews were opened eight minutes before this page's clock says it is now (as for a
    // page opened, or reloaded, long after the agent asked).
    const remote = await newPage(t, browser());
    await remote.clock.install({ time: Date.now() + 8 * 60_000 });
    await openRemote(remote, setup.viewerLink);
    await remoteSidebar(remote).locator('.remote-badge', { hasText: '2' }).waitFor({ timeout: 20_000 });
    await remoteSidebar(remote).getByRole('button', { name: /Reviews/ }).click();
    const shout = remote.locator('.remote-review', { hasText: 'Shout beta' });
    const addTwo = remote.locator('.remote-review', { hasText: 'Add two' });
    await shout.waitFor();
    assert.match(await shout.locator('.remote-review-meta').innerText(), /from e2e-agent · (8|9) min ago$/);
    assert.match(await addTwo.locator('.remote-review-meta').innerText(), /(8|9) min ago$/);

    // What Accept does, per review: this request writes the file itself (no `apply`); that one has the machine write it.
    assert.equal(await shout.locator('.remote-review-effect').innerText(), 'Accept: e2e-agent gets the change and writes the file itself; Switchboard writes nothing.');
    assert.equal(await addTwo.locator('.remote-review-effect').innerText(), `Accept: Switchboard writes the change to the file on ${machineId}.`);
    const description = await remote.getByRole('region', { name: 'Reviews' }).locator('.view-description').innerText();
    assert.match(description, /Each says who writes the file if you accept it/);
    await shootEverySize(remote, 'remote-reviews');

    // Two minutes pass with the page open: the ages follow.
    await remote.clock.fastForward('02:00');
    await pollUntil(async () => /(10|11) min ago$/.test(await shout.locator('.remote-review-meta').innerText()), { what: 'the age to be redrawn' });

    // A reload keeps them: the age is the review's, not the page's.
    // The reload keeps the page on Reviews.
    await remote.reload();
    await shout.waitFor({ timeout: 20_000 });
    assert.match(await shout.locator('.remote-review-meta').innerText(), /(10|11) min ago$/);

    // Decided ones age too.
    await addTwo.getByRole('button', { name: 'Accept', exact: true }).click();
    const accepted = await requests[1]!;
    assert.equal(accepted.applied, true, 'the machine wrote it, as the card said');
    const decided = remote.locator('.remote-settled-item', { hasText: 'Add two' });
    await decided.waitFor({ timeout: 20_000 });
    assert.equal(await decided.locator('.remote-settled-time').innerText(), 'just now');
    await remote.clock.fastForward('05:00');
    await pollUntil(async () => (await decided.locator('.remote-settled-time').innerText()) === '5 min ago', { what: 'the decided age to be redrawn' });
    await shootEverySize(remote, 'remote-reviews-decided');
  });

  it('says when the machine goes offline, and comes back with it', async (t) => {
    const setup = await startRemoteSetup(t);
    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);
    await remote.getByRole('button', { name: 'New terminal' }).click();
    const [before] = await waitForPanes(remote, 1);
    await waitForPaneText(remote, before!, '$', slow);

    await stop(setup.serve.child, setup.serve.exited);
    const banner = remote.locator('.connection-banner[data-remote-state="machine-offline"]');
    await banner.waitFor({ timeout: 20_000 });
    assert.match(await banner.innerText(), /home is offline/);
    assert.equal(await remote.locator('.shell').getAttribute('data-connection'), 'lost');
    await remote.screenshot({ path: join(setup.dirs.home, 'remote-offline.png') });

    // The machine comes back: the view reconnects by itself and works again.
    await setup.startServe();
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    await remote.locator('.shell[data-connection="live"]').waitFor();
    await remote.getByRole('button', { name: 'New terminal' }).first().click();
    const after = await pollUntil(async () => (await paneIds(remote)).find((id) => id !== before), { timeoutMs: 20_000, what: 'a pane after the reconnect' });
    await waitForPaneText(remote, after, '$', slow);
    await typeInPane(remote, after, 'echo back-$((20+1))');
    await waitForPaneText(remote, after, 'back-21', slow);
  });

  it('signs the browser out when the machine\'s tokens are rotated, and says so', async (t) => {
    const setup = await startRemoteSetup(t);
    const remote = await newPage(t, browser());
    await openRemote(remote, setup.viewerLink);

    await new RelayTokenStore({ filePath: setup.tokensFile }).addMachine(machineId, { rotate: true });
    // The open socket stays; the next connection (the machine restarting) is refused.
    await stop(setup.serve.child, setup.serve.exited);
    const banner = remote.locator('.connection-banner[data-remote-state="signed-out"]');
    await banner.waitFor({ timeout: slow });
    assert.match(await banner.innerText(), /no longer lets this browser view home[\s\S]*viewer link/);
    const reloaded = await remote.reload();
    assert.equal(reloaded?.status(), 401, 'the page itself is refused too');
  });
});
