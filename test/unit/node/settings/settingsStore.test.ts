import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSettings } from '../../../../src/common/api/contract.ts';
import { createLogger } from '../../../../src/node/logger.ts';
import { SettingsStore } from '../../../../src/node/settings/settingsStore.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';

function storeIn(dataDir: string) {
  const lines: string[] = [];
  const store = new SettingsStore({ filePath: join(dataDir, 'settings.json'), logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }) });
  return { store, lines, file: join(dataDir, 'settings.json') };
}

describe('SettingsStore', () => {
  let temp: ReturnType<typeof createTempHome>;
  afterEach(() => temp.dispose());

  it('starts from defaults when there is no file, without a warning', async (t) => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, lines } = storeIn(temp.dataDir);
    t.after(() => store.dispose());
    assert.deepEqual(await store.load(), defaultSettings);
    assert.deepEqual(lines, []);
  });

  it('persists an update as JSON with mode 0600 and reads it back', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, file } = storeIn(temp.dataDir);
    await store.load();
    const changed: number[] = [];
    store.onDidChange((settings) => changed.push(settings.fontSize));
    await store.update({ fontSize: 17 });
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).fontSize, 17);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(changed, [17]);
    const again = storeIn(temp.dataDir).store;
    assert.equal((await again.load()).fontSize, 17);
    store.dispose();
  });

  it('falls back to defaults with a warning for a file that is not JSON', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, lines, file } = storeIn(temp.dataDir);
    writeFileSync(file, '{ not json');
    assert.deepEqual(await store.load(), defaultSettings);
    assert.match(lines.join('\n'), /not valid JSON/);
  });

  it('falls back to the default of a bad key only, with a warning naming it, and ignores unknown keys', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, lines, file } = storeIn(temp.dataDir);
    writeFileSync(file, JSON.stringify({ ...defaultSettings, theme: 'light', fontSize: 1000, fromTheFuture: true }));
    assert.deepEqual(await store.load(), { ...defaultSettings, theme: 'light' });
    assert.match(lines.join('\n'), /settings file has problems.*fontSize: Too big.*fromTheFuture: unknown setting/);
  });

  it('treats undefined values in an update as not given (Electron IPC keeps them)', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store } = storeIn(temp.dataDir);
    await store.load();
    assert.equal((await store.update({ fontSize: 15, theme: undefined } as never)).theme, defaultSettings.theme);
    assert.equal(store.current.fontSize, 15);
  });

  it('fills keys missing from an older file with defaults', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, lines, file } = storeIn(temp.dataDir);
    writeFileSync(file, JSON.stringify({ theme: 'dark' }));
    assert.deepEqual(await store.load(), { ...defaultSettings, theme: 'dark' });
    assert.deepEqual(lines, []);
  });

  it('keeps every one of several concurrent updates', async () => {
    temp = createTempHome();
    mkdirSync(temp.dataDir);
    const { store, file } = storeIn(temp.dataDir);
    await store.load();
    await Promise.all([store.update({ fontSize: 20 }), store.update({ theme: 'light' }), store.update({ copyOnSelect: false })]);
    const onDisk = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(onDisk, { ...defaultSettings, fontSize: 20, theme: 'light', copyOnSelect: false });
  });
});
