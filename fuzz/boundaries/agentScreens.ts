/**
 * Reading an agent's state from its screen (src/node/agents/screenRules.ts with the rules of
 * agentTable.ts). The screen is whatever programs in the pane print, so it is hostile input to
 * the rules' regular expressions. Screens are built from the lines of the captured real screens
 * (test/fixtures/agents/), cut, spliced, repeated and mixed with long runs of the characters the
 * rules look for. Properties: no exception, no screen takes long (a regular expression that
 * backtracks would), the reading is well-formed (a state, answers among the options on screen),
 * and blank lines under the screen change nothing.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { builtInAgents, type ScreenRules } from '../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../src/node/agents/screenRules.ts';
import { type FuzzBoundary, show, withinTimeLimit } from '../boundary.ts';

const fixtures = join(import.meta.dirname, '../../test/fixtures/agents');

/** Every line of every captured screen of this agent. */
function capturedLines(kind: string, rules: ScreenRules): string[] {
  const dir = join(fixtures, kind, rules.capturedFrom);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.txt'));
  } catch {
    return [];
  }
  return names.flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'));
}

const runs = ['─', ' ', '│', '❯', '1', '.', '╭', '╰', '━', '▀', '·', 'esc', '(', ')', '…', '>', '─ ', '  '];

function line(pool: readonly string[]): fc.Arbitrary<string> {
  const captured = pool.length > 0 ? fc.constantFrom(...pool) : fc.constant('');
  return fc.oneof(
    { weight: 6, arbitrary: captured },
    // A captured line cut short, or two spliced.
    { weight: 2, arbitrary: fc.tuple(captured, captured, fc.double({ min: 0, max: 1, noNaN: true })).map(([a, b, at]) => a.slice(0, Math.floor(a.length * at)) + b.slice(Math.floor(b.length * at))) },
    // Long runs of what the rules match on: where a backtracking expression would take forever.
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...runs), fc.integer({ min: 1, max: 600 }), captured).map(([run, count, tail]) => run.repeat(count) + tail) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  );
}

const agents = builtInAgents.flatMap((agent) => (agent.screen ? [{ kind: agent.kind, rules: agent.screen }] : []));
const screens = fc.constantFrom(...agents).chain(({ kind, rules }) => {
  const pool = capturedLines(kind, rules);
  return fc.record({ kind: fc.constant(kind), rules: fc.constant(rules), lines: fc.array(line(pool), { maxLength: 50 }) });
});

export const agentScreensBoundary: FuzzBoundary = {
  name: 'agent-screens',
  title: "Agent-state screen rules (src/node/agents/screenRules.ts, agentTable.ts)",
  testRuns: 2000,
  fullRuns: 300_000,
  open() {
    const property = fc.property(screens, ({ kind, rules, lines }) =>
      withinTimeLimit(
        `reading a ${kind} screen`,
        () => {
          const reading = readAgentScreen(rules, lines);
          if (reading !== null) {
            if (!['working', 'needs-input', 'idle'].includes(reading.state)) throw new Error(`${kind}: state ${show(reading.state)}`);
            const options = reading.prompt?.options.length ?? 0;
            for (const answer of [reading.answers?.approve, reading.answers?.deny]) {
              if (answer !== null && answer !== undefined && (!Number.isInteger(answer) || answer < 1 || answer > Math.max(options, 9))) throw new Error(`${kind}: answer ${answer} with ${options} options`);
            }
            if (reading.selected !== undefined && (reading.selected < 1 || reading.selected > options)) throw new Error(`${kind}: selected ${reading.selected} of ${options} options`);
          }
          deepStrictEqual(readAgentScreen(rules, [...lines, '', '   ']), reading, `${kind}: blank lines under the screen changed its reading`);
          return true;
        },
        // A backtracking expression on a 600-character run takes seconds to forever; GC pauses on a loaded machine stay well under this.
        2_000,
      ),
    );
    return { property, dispose() {} };
  },
};
