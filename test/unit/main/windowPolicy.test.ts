/**
 * The Electron window's security decisions (main/windowPolicy.ts), as main.ts, security.ts and
 * windowBridge.ts hand them to Electron: the real webPreferences object, the CSP, permissions,
 * navigation and window.open, external links and the IPC sender check. There is no Electron
 * binary on the build machines; the smoke test (test/electron) checks the running window where
 * there is one.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/node/logger.ts';
import {
  contentSecurityPolicy,
  createIpcCallHandler,
  externalUrl,
  hardenWebContents,
  isPermissionAllowed,
  isTrustedSender,
  untrustedSenderOutcome,
  windowWebPreferences,
  withContentSecurityPolicy,
  type IpcBridge,
} from '../../../main/windowPolicy.ts';

const quiet = createLogger({ level: 'silent' });
const rendererUrl = 'file:///opt/Switchboard/resources/app.asar/dist/renderer/index.html';

describe('Electron window policy', () => {
  it('gives the window contextIsolation, a sandbox, no Node anywhere, web security and no <webview>', () => {
    const preferences = windowWebPreferences('/app/preload/preload.cjs');
    assert.equal(preferences.contextIsolation, true);
    assert.equal(preferences.sandbox, true);
    assert.equal(preferences.nodeIntegration, false);
    assert.equal(preferences.nodeIntegrationInSubFrames, false);
    assert.equal(preferences.nodeIntegrationInWorker, false);
    assert.equal(preferences.webSecurity, true);
    assert.equal(preferences.allowRunningInsecureContent, false);
    assert.equal(preferences.webviewTag, false);
    assert.equal(preferences.preload, '/app/preload/preload.cjs');
    // main.ts passes exactly this object to new BrowserWindow.
    const mainSource = readFileSync(fileURLToPath(new URL('../../../main/main.ts', import.meta.url)), 'utf8');
    assert.match(mainSource, /webPreferences: windowWebPreferences\(preloadPath\)/);
    assert.equal((mainSource.match(/new BrowserWindow\(/g) ?? []).length, 1, 'one window, created in one place');
  });

  it('sends a CSP of our own scripts only, no plugins, no framing — replacing any a response brings — and index.html carries the same', () => {
    const directives = new Map(contentSecurityPolicy.split('; ').map((directive) => [directive.split(' ')[0]!, directive.split(' ').slice(1).join(' ')]));
    assert.equal(directives.get('default-src'), "'self'");
    assert.equal(directives.get('script-src'), "'self'", 'no inline or eval scripts');
    assert.equal(directives.get('object-src'), "'none'");
    assert.equal(directives.get('base-uri'), "'none'");
    assert.equal(directives.get('frame-ancestors'), "'none'");
    assert.equal(directives.get('connect-src'), "'self'");
    const headers = withContentSecurityPolicy({ 'content-security-policy': ["script-src 'unsafe-eval'"], 'Content-Type': 'text/html' });
    assert.deepEqual(headers, { 'Content-Type': ['text/html'], 'Content-Security-Policy': [contentSecurityPolicy] });
    assert.deepEqual(withContentSecurityPolicy(undefined), { 'Content-Security-Policy': [contentSecurityPolicy] });
    const html = readFileSync(fileURLToPath(new URL('../../../renderer/index.html', import.meta.url)), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    // frame-ancestors works only as a header, so the meta tag is the rest of the same policy.
    assert.equal(meta, contentSecurityPolicy.replace("; frame-ancestors 'none'", ''));
  });

  it('grants notifications and sanitized clipboard writes; clipboard reads only to the bundled page; nothing else', () => {
    assert.equal(isPermissionAllowed('notifications', 'https://evil.example'), true);
    assert.equal(isPermissionAllowed('clipboard-sanitized-write', rendererUrl), true);
    assert.equal(isPermissionAllowed('clipboard-read', rendererUrl), true);
    assert.equal(isPermissionAllowed('clipboard-read', 'https://evil.example/'), false);
    for (const permission of ['media', 'geolocation', 'openExternal', 'fullscreen', 'pointerLock', 'hid', 'serial', 'usb', 'display-capture']) {
      assert.equal(isPermissionAllowed(permission, rendererUrl), false, permission);
    }
  });

  it('hands only plain http(s) URLs without credentials to the system browser', () => {
    assert.equal(externalUrl('https://example.com/a?b#c'), 'https://example.com/a?b#c');
    assert.equal(externalUrl('http://localhost:3000/'), 'http://localhost:3000/');
    for (const raw of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi', 'ssh://host', 'smb://share/x', 'vscode://x', 'https://user:pw@example.com/', 'https://user@example.com/', 'not a url', '']) {
      assert.equal(externalUrl(raw), undefined, raw);
    }
  });

  it('denies navigation, redirects, <webview> and new windows; links go to the system browser only when http(s)', () => {
    const contents = new EventEmitter() as EventEmitter & { windowOpenHandler?: (details: { url: string }) => { action: 'deny' } };
    const opened: string[] = [];
    hardenWebContents(
      Object.assign(contents, { setWindowOpenHandler: (handler: (details: { url: string }) => { action: 'deny' }) => (contents.windowOpenHandler = handler) }),
      async (url) => {
        opened.push(url);
      },
      quiet,
    );
    const fire = (name: string, url?: string) => {
      let prevented = false;
      contents.emit(name, { preventDefault: () => (prevented = true), ...(url === undefined ? {} : { url }) });
      return prevented;
    };
    assert.equal(fire('will-navigate', 'https://example.com/docs'), true, 'navigation away is cancelled');
    assert.equal(fire('will-navigate', 'file:///etc/passwd'), true);
    assert.equal(fire('will-navigate', 'javascript:alert(1)'), true);
    assert.equal(fire('will-redirect', 'https://example.com/elsewhere'), true);
    assert.equal(fire('will-attach-webview'), true);
    assert.deepEqual(contents.windowOpenHandler!({ url: 'https://example.com/new' }), { action: 'deny' });
    assert.deepEqual(contents.windowOpenHandler!({ url: 'file:///home/user/.ssh/id_rsa' }), { action: 'deny' });
    assert.deepEqual(contents.windowOpenHandler!({ url: 'https://a:b@example.com/' }), { action: 'deny' });
    assert.deepEqual(opened, ['https://example.com/docs', 'https://example.com/new'], 'only the http(s) links, and never a redirect');
  });

  it('trusts IPC only from our window’s main frame showing our renderer; refuses an iframe, another window, another URL, a closed window', () => {
    const mainFrame = { url: `${rendererUrl}#/terminals` };
    const webContents = { mainFrame };
    const window = { isDestroyed: () => false, webContents };
    assert.equal(isTrustedSender({ sender: webContents, senderFrame: mainFrame }, window, rendererUrl), true);
    assert.equal(isTrustedSender({ sender: webContents, senderFrame: { url: `${rendererUrl}?x=1` } }, window, rendererUrl), false, 'an iframe, even at our URL');
    assert.equal(isTrustedSender({ sender: { mainFrame }, senderFrame: mainFrame }, window, rendererUrl), false, 'another web contents');
    assert.equal(isTrustedSender({ sender: webContents, senderFrame: null }, window, rendererUrl), false, 'a frame that is gone');
    const navigated = { url: 'https://evil.example/index.html' };
    assert.equal(isTrustedSender({ sender: { mainFrame: navigated }, senderFrame: navigated }, { isDestroyed: () => false, webContents: { mainFrame: navigated } }, rendererUrl), false, 'another URL');
    const lookalike = { url: `${rendererUrl}.evil.html` };
    assert.equal(isTrustedSender({ sender: { mainFrame: lookalike }, senderFrame: lookalike }, { isDestroyed: () => false, webContents: { mainFrame: lookalike } }, rendererUrl), false, 'a URL that only starts like ours');
    assert.equal(isTrustedSender({ sender: webContents, senderFrame: mainFrame }, { isDestroyed: () => true, webContents }, rendererUrl), false, 'a destroyed window');
  });

  it('answers an API call from an unknown frame with UNAUTHORIZED before the Hub sees it', async () => {
    const calls: unknown[] = [];
    const trusted = { id: 1 };
    const bridge: IpcBridge = {
      isTrustedSender: (event) => event.sender === trusted,
      handleCall: async (method, params) => {
        calls.push([method, params]);
        return { ok: true, result: 'pong' };
      },
    };
    const lines: string[] = [];
    const handle = createIpcCallHandler((id) => (id === 1 ? bridge : undefined), createLogger({ level: 'warn', sink: (line) => lines.push(line) }));
    assert.deepEqual(await handle({ sender: { id: 2 }, senderFrame: { url: 'https://evil.example/' } }, 'terminal.create', {}), untrustedSenderOutcome, 'a window that is not ours');
    assert.deepEqual(await handle({ sender: { id: 1 }, senderFrame: { url: 'https://evil.example/' } }, 'terminal.create', {}), untrustedSenderOutcome, 'our window id, but not our trusted sender');
    assert.deepEqual(calls, [], 'the Hub never saw those');
    assert.deepEqual(untrustedSenderOutcome, { ok: false, error: { code: 'UNAUTHORIZED', message: 'this frame may not call the Switchboard API' } });
    assert.equal(lines.filter((line) => line.includes('refused an IPC call from an unknown sender')).length, 2);
    assert.deepEqual(await handle({ sender: trusted, senderFrame: { url: rendererUrl } }, 'app.ping', {}), { ok: true, result: 'pong' });
    assert.deepEqual(calls, [['app.ping', {}]]);
  });
});
