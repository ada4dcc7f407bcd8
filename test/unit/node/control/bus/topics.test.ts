import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPattern, checkTopic, topicMatchesString } from '../../../../../src/node/control/bus/topics.ts';

describe('bus topics', () => {
  it('accepts dot-separated lowercase segments and refuses everything else', () => {
    for (const topic of ['a', 'task.build.done', 'terminal.t-3f2a9c01.output', 'x_1.y-2']) assert.equal(checkTopic(topic).ok, true, topic);
    for (const topic of ['', 'A', 'a..b', '.a', 'a.', 'a b', 'a.*', 'a.**', 'é', 'a/b', '-a']) assert.equal(checkTopic(topic).ok, false, topic);
    assert.equal(checkTopic('a.'.repeat(200) + 'a').ok, false, 'too long');
  });

  it('allows * and ** only as whole segments of a pattern', () => {
    for (const pattern of ['*', '**', 'a.*', 'a.**', '*.b.**']) assert.equal(checkPattern(pattern).ok, true, pattern);
    for (const pattern of ['a*', 'a.b*', '***', 'a.*b']) assert.equal(checkPattern(pattern).ok, false, pattern);
  });

  it("takes + in a pattern literally, as claws does (its MCP server subscribes to worker.+.complete)", () => {
    assert.equal(checkPattern('worker.+.complete').ok, true);
    assert.equal(topicMatchesString('worker.+.complete', 'worker.w1.complete'), false, 'not a wildcard');
    assert.equal(checkTopic('worker.+.complete').ok, false, 'published topics stay plain segments');
    assert.equal(checkPattern('worker.a+.complete').ok, false, 'only a whole segment');
  });

  it('matches * as exactly one segment', () => {
    assert.equal(topicMatchesString('task.*', 'task.a'), true);
    assert.equal(topicMatchesString('task.*', 'task'), false);
    assert.equal(topicMatchesString('task.*', 'task.a.b'), false);
    assert.equal(topicMatchesString('*.end', 'command.end'), true);
    assert.equal(topicMatchesString('command.*.end', 'command.t-1.end'), true);
    assert.equal(topicMatchesString('command.*.end', 'command.t-1.start'), false);
  });

  it('matches ** as one or more segments', () => {
    assert.equal(topicMatchesString('task.**', 'task.a'), true);
    assert.equal(topicMatchesString('task.**', 'task.a.b'), true);
    assert.equal(topicMatchesString('task.**', 'task'), false);
    assert.equal(topicMatchesString('**', 'a.b.c'), true);
    assert.equal(topicMatchesString('a.**.z', 'a.b.c.z'), true);
    assert.equal(topicMatchesString('a.**.z', 'a.z'), false);
    assert.equal(topicMatchesString('**.z', 'z'), false);
    assert.equal(topicMatchesString('a.b', 'a.b'), true);
    assert.equal(topicMatchesString('a.b', 'a.c'), false);
  });

  it('stays fast on a pattern full of ** (no exponential backtracking)', () => {
    const pattern = Array.from({ length: 31 }, () => '**').join('.') + '.z';
    const topic = Array.from({ length: 31 }, () => 'a').join('.') + '.y';
    const started = performance.now();
    assert.equal(topicMatchesString(pattern, topic), false);
    assert.ok(performance.now() - started < 100);
  });
});
