/**
 * Remote access status in words for people: the sidebar indicator, the Settings section and the
 * tooltips all say the same thing the same way.
 */
import { useEffect, useState } from 'react';
import type { RelayView } from './relayState.ts';

export type RelayTone = 'ok' | 'busy' | 'warn' | 'danger' | 'off';

export interface RelayStatusWords {
  /** One or two words: "Connected", "Reconnecting in 12 s", "Refused". */
  label: string;
  tone: RelayTone;
  /** Why (refused, reconnecting, misconfigured), or where it is connected. */
  detail: string | null;
}

export function relayStatusWords(view: RelayView, now: number): RelayStatusWords {
  const { status } = view;
  const inSeconds = view.retryAt === null ? null : Math.max(0, Math.ceil((view.retryAt - now) / 1000));
  switch (status.state) {
    case 'connected':
      return { label: 'Connected', tone: 'ok', detail: `${status.url} as ${status.machineId}` };
    case 'connecting':
      return { label: 'Connecting…', tone: 'busy', detail: status.url };
    case 'reconnecting':
      return { label: inSeconds ? `Reconnecting in ${inSeconds} s` : 'Reconnecting…', tone: 'warn', detail: status.reason ?? null };
    case 'refused':
      return { label: 'Refused', tone: 'danger', detail: `${refusalWhy(status.reason)}${inSeconds ? ` · retrying in ${inSeconds} s` : ''}` };
    case 'off':
      return status.reason ? { label: 'Not connected', tone: 'warn', detail: status.reason } : { label: 'Off', tone: 'off', detail: null };
  }
}

/** "Refused" already says the relay refused: keep only why ("HTTP 401: wrong machine id or token"). */
function refusalWhy(reason: string | undefined): string {
  if (!reason) return 'the relay refused this machine';
  return /^the relay refused the connection \((.+)\)$/.exec(reason)?.[1] ?? reason;
}

/** The current time, re-read every second while `ticking` (for "reconnecting in N s"). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
