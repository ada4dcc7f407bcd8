/**
 * Plumbing for the tests of the Hub-owned relay client (relayHub*.test.ts): a real Hub on a temp
 * HOME / SWITCHBOARD_HOME whose logger keeps every line, an in-process API client that records
 * every event, and helpers to turn remote access on through the API as the Settings view does.
 */
import { Hub, type HubOptions } from '../../../src/node/hub.ts';
import type { EventPayload, HubEvent } from '../../../src/common/api/contract.ts';
import type { RelayStatus } from '../../../src/common/api/relayContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { bashShell, fastTiming, recordingLogger } from './relayTestKit.ts';

export interface RelayHubFixture {
  hub: Hub;
  api: LocalHubClient;
  temp: ReturnType<typeof createTempHome>;
  /** Every log line of this Hub (to check that the token never appears). */
  logLines: string[];
  /** Every event the API client received, in order. */
  events: Array<{ event: HubEvent; payload: unknown }>;
  /** Events of one kind received so far. */
  eventsOf<E extends HubEvent>(event: E): Array<EventPayload<E>>;
  /** Poll `relay.getStatus` until it matches. */
  waitForStatus(predicate: (status: RelayStatus) => boolean, what: string): Promise<RelayStatus>;
  /** Stop the Hub (shutdown, as a host does on quit); `keepFiles` keeps the data dir for a restart. */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
}

const recordedEvents: HubEvent[] = ['relay.statusChanged', 'terminal.agentInput', 'review.added', 'review.decided', 'review.removed'];

/** A started Hub with fast relay timers and plain bash for remote terminals. */
export async function startRelayHub(options: { temp?: ReturnType<typeof createTempHome>; hub?: Partial<HubOptions> } = {}): Promise<RelayHubFixture> {
  const temp = options.temp ?? createTempHome('sb-relay-hub-');
  const { logger, lines } = recordingLogger();
  const hub = new Hub({
    dataDir: temp.dataDir,
    workspaceFolders: [temp.workspace],
    host: 'test',
    logger,
    version: '9.9.9',
    env: {},
    clawsCompatSockets: false,
    ideLockDir: null,
    relay: { tuning: { timing: fastTiming, remoteShell: bashShell } },
    ...options.hub,
  });
  await hub.start();
  const api = createLocalHubClient(hub, { kind: 'person', name: 'you' });
  const events: Array<{ event: HubEvent; payload: unknown }> = [];
  for (const event of recordedEvents) api.on(event, (payload) => events.push({ event, payload }));
  const eventsOf = <E extends HubEvent>(event: E) => events.filter((entry) => entry.event === event).map((entry) => entry.payload as EventPayload<E>);
  let stopped = false;
  return {
    hub,
    api,
    temp,
    logLines: lines,
    events,
    eventsOf,
    async waitForStatus(predicate, what) {
      return await pollUntil(
        async () => {
          const status = await api.call('relay.getStatus', {});
          return predicate(status) ? status : undefined;
        },
        { timeoutMs: 20_000, what },
      );
    },
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      api.dispose();
      await hub.shutdown();
      if (!stopOptions.keepFiles) temp.dispose();
    },
  };
}

/** Turn remote access on as the Settings view does: URL and machine id, the token, then "connect on start". */
export async function enableRemoteAccess(fixture: RelayHubFixture, relay: { url: string }, machineId: string, token: string): Promise<RelayStatus> {
  await fixture.api.call('settings.update', { relayUrl: relay.url, relayMachineId: machineId });
  await fixture.api.call('relay.setToken', { token });
  await fixture.api.call('settings.update', { relayEnabled: true });
  return await fixture.waitForStatus((status) => status.state === 'connected', 'the relay client to connect');
}
