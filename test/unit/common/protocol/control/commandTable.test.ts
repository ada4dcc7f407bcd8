import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { historyMethods } from '../../../../../src/common/api/historyContract.ts';
import { controlCommandNames, controlCommands } from '../../../../../src/common/protocol/control/commands.ts';
import { clawsUnsupportedCommandNames } from '../../../../../src/common/protocol/control/clawsWorkerCommands.ts';

describe('control command table', () => {
  it('keeps the unknown fields of every answer, so a newer server does not break an older client', () => {
    for (const name of controlCommandNames) {
      const { result } = controlCommands[name];
      if (result instanceof z.ZodNever) {
        assert.ok((clawsUnsupportedCommandNames as readonly string[]).includes(name), `${name} has no result but is not a refused claws command`);
        continue;
      }
      assert.ok(result instanceof z.ZodObject, `${name}: the result is not an object schema`);
      assert.ok(result._zod.def.catchall instanceof z.ZodUnknown, `${name}: the result drops or refuses unknown fields; use z.looseObject`);
    }
  });

  it('treats null as absent in the fields of claws commands, whose clients send null for what they leave unset', () => {
    assert.deepEqual(controlCommands.create.params.parse({ id: 1, cmd: 'create', cwd: null, name: 'w' }), { name: 'w' });
    assert.deepEqual(controlCommands['task.list'].params.parse({ status: null }), {});
    assert.equal(controlCommands.subscribe.params.parse({ topic: 'a.b', fromCursor: null }).fromCursor, undefined);
  });

  it('drops the envelope and unknown fields from params', () => {
    assert.deepEqual(controlCommands.rename.params.parse({ id: 'r1', cmd: 'rename', clientName: 'x', protocol: 'claws/1', terminalId: 't', name: 'n', extra: 1 }), {
      terminalId: 't',
      name: 'n',
    });
    assert.deepEqual(controlCommands['tokens.create'].params.parse({ id: 1, cmd: 'tokens.create', name: ' ci ', scopes: ['read'] }), { name: 'ci', scopes: ['read'] });
  });

  it("moves history commands' top-level fields onto the Hub method's params, which accept them", () => {
    const list = controlCommands['history.list'].params.parse({ id: 1, cmd: 'history.list', limit: 5, cwd: '/src', exit: 'failure' });
    assert.deepEqual(list, { limit: 5, filter: { cwd: '/src', exit: 'failure' } });
    assert.deepEqual(historyMethods['history.list'].params.parse(list), list);
    const commands = controlCommands['history.commands'].params.parse({ sessionId: 's1', query: 'make' });
    assert.deepEqual(commands, { sessionId: 's1', query: 'make' });
    assert.deepEqual(historyMethods['history.commands'].params.parse(commands), commands);
    assert.deepEqual(controlCommands['history.get'].params.parse({ sessionId: 's1' }), { id: 's1' });
    assert.deepEqual(controlCommands['history.export'].params.parse({ sessionId: 's1' }), { id: 's1', format: 'cast' });
  });

  it('refuses bad params with the field at fault', () => {
    const bad = controlCommands['history.list'].params.safeParse({ exit: 'sometimes' });
    assert.equal(bad.success, false);
    assert.deepEqual(bad.error?.issues[0]?.path, ['exit']);
    const wait = controlCommands.wait.params.safeParse({ terminalId: 't' });
    assert.equal(wait.error?.issues[0]?.message, 'wait needs at least one of pattern, exit, idleMs, prompt, agentState or port');
  });
});
