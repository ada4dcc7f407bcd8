/** Every verb of the `switchboard` command. Add a verb: write commands/VERB.ts and list it here. */
import type { CliCommand } from '../command.ts';
import { agentCommand } from './agent.ts';
import { agentsCommand } from './agents.ts';
import { closeCommand } from './close.ts';
import { execCommand } from './exec.ts';
import { historyCommand } from './history.ts';
import { lsCommand } from './ls.ts';
import { mcpCommand } from './mcp.ts';
import { newCommand } from './new.ts';
import { portsCommand } from './ports.ts';
import { publishCommand } from './publish.ts';
import { readCommand } from './read.ts';
import { relayCommand } from './relay.ts';
import { renameCommand } from './rename.ts';
import { screenCommand } from './screen.ts';
import { sendCommand } from './send.ts';
import { serveCommand } from './serve.ts';
import { signalCommand } from './signal.ts';
import { subscribeCommand } from './subscribe.ts';
import { tokensCommand } from './tokens.ts';
import { waitCommand } from './wait.ts';
import { worktreeCommand } from './worktree.ts';

export const commands: readonly CliCommand[] = [
  serveCommand,
  lsCommand,
  agentsCommand,
  portsCommand,
  agentCommand,
  worktreeCommand,
  newCommand,
  sendCommand,
  execCommand,
  readCommand,
  screenCommand,
  waitCommand,
  signalCommand,
  closeCommand,
  renameCommand,
  subscribeCommand,
  publishCommand,
  tokensCommand,
  historyCommand,
  mcpCommand,
  relayCommand,
];
