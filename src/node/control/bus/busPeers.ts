/** Who is on the bus: one entry per control connection, a peer once it said `hello`; and the directory of peers by connection. */
import { Emitter, type Event } from '../../../common/event.ts';
import { PeerRole } from '../../../common/protocol/control/busCommands.ts';
import type { ControlCommand } from '../commandRegistry.ts';

export { PeerRole };

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

/**
 * Which peer each control connection said hello as, and when each peer was last heard from — for
 * `peers` and the task registry, which act on the calling peer. Fed by wrapping the bus commands
 * (`trackPeerCommands`), so the Bus keeps one job: routing messages.
 */
export class PeerDirectory {
  readonly #peerByConnection = new WeakMap<object, string>();
  readonly #lastSeen = new Map<string, number>();
  readonly #onDidLeave = new Emitter<string>();
  /** A peer's connection closed (its peer id). */
  readonly onDidLeave: Event<string> = this.#onDidLeave.event;

  /** The peer id a connection said hello as; null before hello. */
  peerIdOf(connection: object): string | null {
    return this.#peerByConnection.get(connection) ?? null;
  }

  /** Epoch ms of the peer's last hello, bus or task command. */
  lastSeen(peerId: string): number | null {
    return this.#lastSeen.get(peerId) ?? null;
  }

  noteHello(connection: ClosableConnection, peerId: string): void {
    const known = this.#peerByConnection.has(connection);
    this.#peerByConnection.set(connection, peerId);
    this.#lastSeen.set(peerId, Date.now());
    if (known) return;
    // The connection's emitter is disposed when it closes, which drops this listener too.
    connection.onDidClose(() => {
      this.#lastSeen.delete(peerId);
      this.#onDidLeave.fire(peerId);
    });
  }

  touch(connection: object): void {
    const peerId = this.#peerByConnection.get(connection);
    if (peerId !== undefined) this.#lastSeen.set(peerId, Date.now());
  }

  dispose(): void {
    this.#onDidLeave.dispose();
  }
}

/** A control connection as the directory needs it (ControlConnection is one). */
export interface ClosableConnection {
  onDidClose: Event<void>;
}

/** Wrap the bus commands so the directory learns who said hello on which connection, and when peers act. */
export function trackPeerCommands(commands: ControlCommand[], directory: PeerDirectory): ControlCommand[] {
  return commands.map((command) => ({
    name: command.name,
    params: command.params,
    async run(params, context) {
      const body = await command.run(params, context);
      if (command.name === 'hello' && typeof body.peerId === 'string') directory.noteHello(context.peer as unknown as ClosableConnection, body.peerId);
      else directory.touch(context.peer);
      return body;
    },
  }));
}
