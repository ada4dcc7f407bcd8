// Evaluated into the app's page only (bench/cases/rendererBench.ts, `hubCall`): a second WebSocket
// to the app's own /api, authenticated by the page's session cookie, so a case can set up in a
// second what a person would click together in minutes (forty terminals, a layout of ten panes)
// through the same API and validation the UI uses. It attaches to no terminal, so no output
// comes to it.
(() => {
  if (window.__appApi) return;
  let opening;
  let nextId = 1;
  const pending = new Map();
  const open = () =>
    (opening ??= new Promise((resolve, reject) => {
      const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api`);
      socket.onopen = () => resolve(socket);
      socket.onerror = () => reject(new Error('cannot open a second WebSocket to /api'));
      socket.onmessage = (event) => {
        if (typeof event.data !== 'string') return;
        const message = JSON.parse(event.data);
        if (message.type !== 'response') return;
        const settle = pending.get(message.id);
        if (!settle) return;
        pending.delete(message.id);
        if (message.ok) settle.resolve(message.result);
        else settle.reject(new Error(`${method(message.id)}: ${message.error.code}: ${message.error.message}`));
      };
    }));
  const methods = new Map();
  const method = (id) => methods.get(id) ?? 'call';
  window.__appApi = {
    async call(name, params) {
      const socket = await open();
      const id = nextId++;
      methods.set(id, name);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ type: 'request', id, method: name, params }));
      });
    },
  };
})();
