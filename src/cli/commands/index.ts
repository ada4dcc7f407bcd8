/** Every verb of the `switchboard` command. Add a verb: write commands/VERB.ts and list it here. */
import type { CliCommand } from '../command.ts';
import { serveCommand } from './serve.ts';

export const commands: readonly CliCommand[] = [serveCommand];
