/** The claws compatibility socket in each workspace folder follows the user's setting (read at start). */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';

async function startHub(settings: Record<string, unknown> | null) {
  const temp = createTempHome('sb-claws-setting-');
  if (settings) {
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(temp.dataDir, 'settings.json'), JSON.stringify(settings), { mode: 0o600 });
  }
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {} });
  await hub.start();
  return {
    hub,
    clawsSocket: join(temp.workspace, '.claws', 'claws.sock'),
    dispose() {
      hub.dispose();
      temp.dispose();
    },
  };
}

test('by default every workspace folder gets .claws/claws.sock', async (t) => {
  const started = await startHub(null);
  t.after(() => started.dispose());
  assert.ok(existsSync(started.clawsSocket));
  assert.ok(existsSync(started.hub.controlSocketPath));
});

test('with clawsCompatSockets off only the control socket listens', async (t) => {
  const started = await startHub({ clawsCompatSockets: false });
  t.after(() => started.dispose());
  assert.equal(existsSync(started.clawsSocket), false);
  assert.ok(existsSync(started.hub.controlSocketPath));
});
