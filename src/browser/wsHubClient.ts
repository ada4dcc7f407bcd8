/**
 * IHubClient in browser mode, over a WebSocket to `/api` of the page's own origin. The session
 * cookie set by `switchboard serve` authenticates the upgrade without any code here. Frames are
 * JSON text per src/common/api/wire.ts, except `terminal.output`, which comes as a binary frame
 * (wire.ts, OutputFrame); inbound frames are validated and bad ones dropped.
 */
import { ApiError } from '../common/api/errors.ts';
import { type CallOutcome, readOutputFrameHeader, WireServerMessage } from '../common/api/wire.ts';
import { HubClientBase } from './hubClientBase.ts';

export interface WsHubClientOptions {
  /** Default: ws(s)://<location.host>/api. */
  url?: string;
}

/** The API endpoint next to the page this script was loaded from. */
export function defaultApiUrl(at: Pick<Location, 'protocol' | 'host'> = location): string {
  return `${at.protocol === 'https:' ? 'wss:' : 'ws:'}//${at.host}/api`;
}

/**
 * Why the server refused the WebSocket, when it did so for the session. A browser tells a page
 * nothing about a refused upgrade, so ask the same endpoint over plain HTTP (the session cookie
 * goes along): 401 means the server is up but no longer takes this page's token — typically it was
 * restarted, with a new one — and retrying cannot help. Anything else (down, 426 "speaks WebSocket")
 * is left to the usual retries.
 */
async function refusalOf(apiUrl: string): Promise<ApiError | null> {
  try {
    // Bounded: a host that did not answer the WebSocket may not answer this either.
    const response = await fetch(apiUrl.replace(/^ws/, 'http'), { method: 'HEAD', cache: 'no-store', credentials: 'same-origin', signal: AbortSignal.timeout(3_000) });
    if (response.status !== 401) return null;
    return new ApiError('UNAUTHORIZED', "the server does not know this window's token — it was probably restarted, with a new one");
  } catch {
    return null;
  }
}

export class WsHubClient extends HubClientBase {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (outcome: CallOutcome) => void>();
  #nextId = 1;
  #closed = false;
  /** Output frames are UTF-8 that never ends inside a sequence, so each decodes on its own. */
  readonly #decoder = new TextDecoder();

  /** Open the socket; resolves once it is open, rejects with CONNECTION_CLOSED if it cannot be. */
  static connect(options: WsHubClientOptions = {}): Promise<WsHubClient> {
    const url = options.url ?? defaultApiUrl();
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      const onOpen = () => {
        socket.removeEventListener('error', onError);
        socket.removeEventListener('close', onError);
        resolve(new WsHubClient(socket));
      };
      const onError = () => {
        socket.removeEventListener('open', onOpen);
        socket.removeEventListener('error', onError);
        socket.removeEventListener('close', onError);
        void refusalOf(url).then((refusal) =>
          reject(refusal ?? new ApiError('CONNECTION_CLOSED', 'cannot connect to the Switchboard server (is it running, and was the page opened with its URL?)')),
        );
      };
      socket.addEventListener('open', onOpen, { once: true });
      socket.addEventListener('error', onError, { once: true });
      socket.addEventListener('close', onError, { once: true });
    });
  }

  /** Wrap an already-open socket. Use `WsHubClient.connect()` to open one. */
  private constructor(socket: WebSocket) {
    super();
    this.#socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('message', (event) => this.#onMessage(event));
    socket.addEventListener('close', () => this.#onClose());
  }

  protected send(method: string, params: unknown): Promise<CallOutcome> {
    if (this.#closed) {
      return Promise.resolve({ ok: false, error: { code: 'CONNECTION_CLOSED', message: 'the connection to the Switchboard server is closed' } });
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      try {
        this.#socket.send(JSON.stringify({ type: 'request', id, method, params }));
      } catch (error) {
        this.#pending.delete(id);
        resolve({ ok: false, error: { code: 'INVALID_PARAMS', message: `cannot send ${method}: ${error instanceof Error ? error.message : String(error)}` } });
      }
    });
  }

  #onMessage(event: MessageEvent): void {
    if (event.data instanceof ArrayBuffer) {
      this.#onOutputFrame(new Uint8Array(event.data));
      return;
    }
    if (typeof event.data !== 'string') {
      console.warn('Switchboard: dropped a frame that is neither text nor binary');
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      console.warn('Switchboard: dropped a frame that is not JSON');
      return;
    }
    const parsed = WireServerMessage.safeParse(json);
    if (!parsed.success) {
      console.warn('Switchboard: dropped a malformed frame', parsed.error.issues[0]?.message);
      return;
    }
    const message = parsed.data;
    if (message.type === 'event') {
      this.dispatchEvent(message.event, message.payload);
      return;
    }
    const resolve = this.#pending.get(message.id);
    if (!resolve) return; // An answer to a call made before a dispose; nobody waits for it.
    this.#pending.delete(message.id);
    resolve(message.ok ? { ok: true, result: message.result } : { ok: false, error: message.error });
  }

  #onOutputFrame(frame: Uint8Array): void {
    const header = readOutputFrameHeader(frame);
    if (typeof header === 'string') {
      console.warn(`Switchboard: dropped a binary frame: ${header}`);
      return;
    }
    const data = this.#decoder.decode(frame.subarray(header.dataStart));
    this.dispatchEvent('terminal.output', { id: header.id, data, offset: header.offset });
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#rejectPending('the connection to the Switchboard server was lost');
    if (!this.disposed) this.disconnectEmitter.fire();
  }

  #rejectPending(message: string): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of pending) resolve({ ok: false, error: { code: 'CONNECTION_CLOSED', message } });
  }

  override dispose(): void {
    if (this.disposed) return;
    super.dispose();
    this.#closed = true;
    this.#rejectPending('the Hub client was disposed');
    this.#socket.close(1000, 'client disposed');
  }
}
