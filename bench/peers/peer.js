// The peer side of the renderer benchmarks, in the page: a bare xterm.js terminal that either
// writes bytes it fetched (pane flood) or talks to a `ws` echo server over a bare node-pty
// (keystroke). No batching, no flow control, no app: the floor a terminal pane is measured against.
/* global Terminal */
window.peer = {
  terminal: null,
  /** A terminal of exactly cols×rows with the app's font, line height and scrollback. */
  open({ cols, rows, scrollback, fontSize, fontFamily }) {
    const terminal = new Terminal({ cols, rows, scrollback, fontSize, fontFamily, lineHeight: 1.2, cursorBlink: true, allowProposedApi: true });
    terminal.open(document.getElementById('terminal'));
    this.terminal = terminal;
  },
  /** Fetches the flood's bytes now, so the timed part is only the writes. */
  async load(url) {
    this.flood = new Uint8Array(await (await fetch(url)).arrayBuffer());
  },
  /** Writes the fetched bytes in 64 KiB chunks (what the Hub's batches are), as they would arrive. */
  writeFlood() {
    const chunk = 64 * 1024;
    for (let start = 0; start < this.flood.length; start += chunk) this.terminal.write(this.flood.subarray(start, start + chunk));
  },
  clear() {
    return new Promise((resolve) => this.terminal.write('\x1b[H\x1b[2J', resolve));
  },
  /** Keystrokes: the terminal's input goes to the echo server and its output comes back as text. */
  connect(url) {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error('cannot reach the echo server'));
      socket.onmessage = (event) => this.terminal.write(event.data);
      this.terminal.onData((data) => socket.send(data));
      this.socket = socket;
    });
  },
  /**
   * Spawn: a click on the page's New terminal button makes a terminal (with the app's font and
   * scrollback, at `cols`×`rows`) and connects it to `url`, where the server starts a bare
   * node-pty shell for the connection — the least a terminal page can do between a click and a
   * prompt drawn. `closeSpawned` closes it again (with its shell), as the app's round closes its pane.
   */
  armSpawn(url, options) {
    const button = document.createElement('button');
    button.id = 'new-terminal';
    button.textContent = 'New terminal';
    button.style.cssText = 'position:absolute;right:8px;top:8px;z-index:10';
    button.addEventListener('click', () => {
      this.closeSpawned();
      const host = document.createElement('div');
      host.id = 'spawned';
      host.style.cssText = 'position:absolute;left:0;top:40px';
      document.body.appendChild(host);
      const terminal = new Terminal({ ...options, lineHeight: 1.2, cursorBlink: true, allowProposedApi: true });
      terminal.open(host);
      const socket = new WebSocket(url);
      socket.onmessage = (event) => terminal.write(event.data);
      terminal.onData((data) => socket.readyState === WebSocket.OPEN && socket.send(data));
      this.spawned = { terminal, socket };
    });
    document.body.appendChild(button);
  },
  closeSpawned() {
    this.spawned?.socket.close();
    this.spawned?.terminal.dispose();
    this.spawned = undefined;
    document.getElementById('spawned')?.remove();
  },
};
