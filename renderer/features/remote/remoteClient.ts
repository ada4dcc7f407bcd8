/**
 * The remote view's access to what only the relay client has (the machine's name, its pending
 * approvals): the Workbench holds the client as a plain IHubClient.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import type { PendingApproval, SettledApproval } from '../../../src/browser/relayApprovals.ts';

export function relayClientOf(client: IHubClient): RelayHubClient | undefined {
  return client instanceof RelayHubClient ? client : undefined;
}

export interface ApprovalLists {
  pending: readonly PendingApproval[];
  settled: readonly SettledApproval[];
}

const noApprovals: ApprovalLists = { pending: [], settled: [] };

/** Snapshots per client, rebuilt on change, so React sees a new object only when something changed. */
const snapshots = new WeakMap<RelayHubClient, ApprovalLists>();

function snapshotOf(client: RelayHubClient): ApprovalLists {
  let snapshot = snapshots.get(client);
  if (!snapshot) {
    snapshot = { pending: client.approvals.pending, settled: client.approvals.settled };
    snapshots.set(client, snapshot);
  }
  return snapshot;
}

/** The machine's approvals, live. */
export function useApprovals(client: RelayHubClient | undefined): ApprovalLists {
  return useSyncExternalStore(
    (listener) => {
      if (!client) return () => {};
      const subscription = client.approvals.onDidChange(() => {
        snapshots.delete(client);
        listener();
      });
      return () => subscription.dispose();
    },
    () => (client ? snapshotOf(client) : noApprovals),
  );
}

/** Ages ("5 min ago") are redrawn this often while the reviews are on screen. */
export const remoteAgeRefreshMs = 30_000;

/** The current time, redrawn every `intervalMs`, so ages stay true while the view is open. */
export function useNow(intervalMs: number = remoteAgeRefreshMs): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
