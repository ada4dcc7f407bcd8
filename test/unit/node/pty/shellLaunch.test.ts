import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseProcStat } from '../../../../src/node/pty/processGroups.ts';
import { composeEnvironment, resolveExecutable, shellIntegrationLaunch } from '../../../../src/node/pty/shellLaunch.ts';

describe('composeEnvironment', () => {
  test('a Hub started by npm gives terminals the person\'s environment, not npm\'s script environment', () => {
    const npmScript = {
      PATH: '/src/switchboard/node_modules/.bin:/src/node_modules/.bin:/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/home/me/.nvm/bin:/usr/bin',
      npm_config_prefix: '/usr/local',
      npm_lifecycle_event: 'serve',
      npm_package_name: 'switchboard',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
      INIT_CWD: '/src/switchboard',
      NODE: '/usr/bin/node',
      COLOR: '1',
      EDITOR: 'vi',
      HOME: '/home/me',
      KEEP: 'mine',
    };
    const env = composeEnvironment({ inherited: npmScript, terminalId: 't-1', baseEnv: undefined, callerEnv: undefined });
    assert.equal(env.PATH, '/home/me/.nvm/bin:/usr/bin', 'the clone\'s node_modules/.bin and node-gyp-bin are not first on PATH');
    assert.deepEqual(
      Object.keys(env).filter((key) => key.startsWith('npm_') || ['INIT_CWD', 'NODE', 'COLOR', 'EDITOR'].includes(key)),
      [],
      'nothing npm added (npm_config_prefix makes nvm refuse to load; EDITOR=vi puts zsh in its vi keymap)',
    );
    assert.equal(env.HOME, '/home/me');
    assert.equal(env.KEEP, 'mine');
    // The person's own editor stays; so does everything when npm did not start the Hub.
    assert.equal(composeEnvironment({ inherited: { ...npmScript, EDITOR: 'nano' }, terminalId: 't-1', baseEnv: undefined, callerEnv: undefined }).EDITOR, 'nano');
    const direct = composeEnvironment({ inherited: { PATH: '/x/node_modules/.bin:/usr/bin', EDITOR: 'vi', NODE: '/n' }, terminalId: 't-1', baseEnv: undefined, callerEnv: undefined });
    assert.deepEqual([direct.PATH, direct.EDITOR, direct.NODE], ['/x/node_modules/.bin:/usr/bin', 'vi', '/n']);
  });

  test('inherits, then terminal variables, then baseEnv, then the caller; the id always wins', () => {
    const env = composeEnvironment({
      inherited: { PATH: '/bin', TERM: 'dumb', COLUMNS: '80', KEEP: 'inherited', SWITCHBOARD_NONCE: 'leak' },
      terminalId: 't-1',
      baseEnv: { SWITCHBOARD_SOCKET: '/s.sock', KEEP: 'base' },
      callerEnv: { COLORTERM: 'caller', SWITCHBOARD_TERMINAL_ID: 'spoofed' },
    });
    assert.equal(env.PATH, '/bin');
    assert.equal(env.TERM, 'xterm-256color');
    assert.equal(env.COLORTERM, 'caller');
    assert.equal(env.TERM_PROGRAM, 'Switchboard');
    assert.equal(env.SWITCHBOARD_SOCKET, '/s.sock');
    assert.equal(env.KEEP, 'base');
    assert.equal(env.SWITCHBOARD_TERMINAL_ID, 't-1');
    assert.equal('COLUMNS' in env, false);
    assert.equal('SWITCHBOARD_NONCE' in env, false);
  });
});

describe('shellIntegrationLaunch', () => {
  const base = { env: {}, home: '/home/me', integrationDir: '/si' };

  test('bash gets --init-file; a login bash is told to read the profile files itself', () => {
    assert.deepEqual(shellIntegrationLaunch({ ...base, file: '/bin/bash', args: [] }), {
      kind: 'bash',
      script: '/si/bash/switchboard.bash',
      args: ['--init-file', '/si/bash/switchboard.bash', '-i'],
      env: {},
    });
    assert.deepEqual(shellIntegrationLaunch({ ...base, file: '/bin/bash', args: ['-l'] })?.env, { SWITCHBOARD_BASH_LOGIN: '1' });
  });

  test('zsh gets our ZDOTDIR and remembers the user one', () => {
    assert.deepEqual(shellIntegrationLaunch({ ...base, file: '/usr/bin/zsh', args: ['-l'] }), {
      kind: 'zsh',
      script: '/si/zsh/.zshrc',
      args: ['-l'],
      env: { ZDOTDIR: '/si/zsh', USER_ZDOTDIR: '/home/me' },
    });
    assert.equal(shellIntegrationLaunch({ ...base, env: { ZDOTDIR: '/cfg' }, file: 'zsh', args: [] })?.env.USER_ZDOTDIR, '/cfg');
  });

  test('fish sources our script after its config, handing it the nonce file', () => {
    const launch = shellIntegrationLaunch({ ...base, file: '/usr/bin/fish', args: ['-l'] });
    assert.deepEqual(launch?.args, ['-l', '--init-command', "source '/si/fish/switchboard.fish'"]);
    assert.deepEqual(launch?.argsWithNonceFile?.("/tmp/sb-nonce-x/it's"), ['-l', '--init-command', "source '/si/fish/switchboard.fish' '/tmp/sb-nonce-x/it\\'s'"]);
    assert.equal(shellIntegrationLaunch({ ...base, file: '/bin/bash', args: [] })?.argsWithNonceFile, undefined, 'bash and zsh unset it before any rc file');
  });

  test('unknown programs and argument lists we do not understand are left alone', () => {
    assert.equal(shellIntegrationLaunch({ ...base, file: '/bin/bash', args: ['--norc', '--noprofile'] }), null);
    assert.equal(shellIntegrationLaunch({ ...base, file: '/bin/bash', args: ['-c', 'ls'] }), null);
    assert.equal(shellIntegrationLaunch({ ...base, file: '/usr/bin/python3', args: [] }), null);
    assert.equal(shellIntegrationLaunch({ ...base, file: '/bin/sh', args: [] }), null);
  });
});

describe('resolveExecutable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-exec-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
  chmodSync(join(dir, 'tool'), 0o755);
  writeFileSync(join(dir, 'plain'), 'not executable');

  test('finds a bare name on PATH and checks paths directly', async () => {
    assert.deepEqual(await resolveExecutable('tool', { cwd: '/', path: `/nonexistent:${dir}` }), { ok: true, path: join(dir, 'tool') });
    assert.deepEqual(await resolveExecutable(join(dir, 'tool'), { cwd: '/', path: '' }), { ok: true, path: join(dir, 'tool') });
    assert.deepEqual(await resolveExecutable('./tool', { cwd: dir, path: '' }), { ok: true, path: join(dir, 'tool') });
  });

  test('explains why a program cannot start', async () => {
    assert.deepEqual(await resolveExecutable('/no/such/shell', { cwd: '/', path: '' }), { ok: false, reason: 'no such file' });
    assert.deepEqual(await resolveExecutable(join(dir, 'plain'), { cwd: '/', path: '' }), { ok: false, reason: 'permission denied (not executable)' });
    assert.deepEqual(await resolveExecutable(dir, { cwd: '/', path: '' }), { ok: false, reason: 'not a regular file' });
    const missing = await resolveExecutable('no-such-tool-xyz', { cwd: '/', path: dir });
    assert.equal(missing.ok, false);
  });
});

describe('parseProcStat', () => {
  test('reads group, session and the terminal’s foreground group even when the command name has spaces and parentheses', () => {
    assert.deepEqual(parseProcStat('4242 (my (weird) cmd) S 1 4240 4200 34816 4240 4194560 0'), {
      pid: 4242,
      state: 'S',
      processGroup: 4240,
      session: 4200,
      terminalGroup: 4240,
    });
    assert.equal(parseProcStat('garbage'), null);
  });

  test('reads when the process started (field 22), which tells it from a later one with its pid', () => {
    const stat = '4242 (my (weird) cmd) S 1 4240 4200 34816 4240 4194560 97 0 0 0 12 3 0 0 20 0 1 0 8812345 2306048 225';
    assert.equal(parseProcStat(stat)?.startTime, '8812345');
  });
});
