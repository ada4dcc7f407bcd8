/** Who is on the bus: one entry per control connection, a peer once it said `hello`. */
import { z } from 'zod';

export const PeerRole = z.enum(['orchestrator', 'worker', 'observer']);
export type PeerRole = z.infer<typeof PeerRole>;

/** What the bus needs from a control connection. */
export interface BusConnection {
  readonly connectionId: number;
  readonly connected: boolean;
  /** Write a push frame; past the connection's write-buffer limit the connection drops itself. */
  sendFrame(frame: Record<string, unknown>): void;
}

export interface PeerInfo {
  peerId: string;
  role: PeerRole;
  peerName: string;
  terminalId: string | null;
  capabilities: string[];
  /** Epoch ms of the first hello. */
  connectedAt: number;
}

/** The public face of a peer, as `system.peer.*` payloads carry it. */
export function describePeer(peer: PeerInfo): Record<string, unknown> {
  return { peerId: peer.peerId, peerName: peer.peerName, role: peer.role, terminalId: peer.terminalId, capabilities: peer.capabilities };
}
