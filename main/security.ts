/**
 * Electron hardening that does not depend on our window: deny navigation, new windows, webviews
 * and permissions for every web contents the app ever creates. Links the renderer opens go to
 * the system browser, and only when they are plain http(s) URLs. The decisions themselves are in
 * windowPolicy.ts (unit-tested); this file hands them to Electron.
 */
import { app, session, shell } from 'electron';
import type { ILogger } from '../src/node/logger.ts';
import { hardenWebContents, isPermissionAllowed, withContentSecurityPolicy } from './windowPolicy.ts';

export function installAppSecurity(logger: ILogger): void {
  const defaultSession = session.defaultSession;
  defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const allowed = isPermissionAllowed(permission, details.requestingUrl ?? '');
    if (!allowed) logger.info('denied a permission request', { permission });
    callback(allowed);
  });
  defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin));
  // The renderer's index.html carries the same policy in a meta tag; the header covers any
  // response that goes through the network stack.
  defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });

  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, (url) => shell.openExternal(url), logger));
}
