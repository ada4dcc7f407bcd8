/**
 * Entry point of the `switchboard` command (bin/switchboard.js imports this after checking the
 * Node version; `node src/cli/main.ts …` works too).
 */
import { runCli } from './cli.ts';

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  // Getters: touching process.stdin opens it, which only the verbs that read it should do.
  get stdin() {
    return process.stdin;
  },
  get stdoutStream() {
    return process.stdout;
  },
});
// Set the status and let pending stdout drain instead of cutting it off with process.exit().
process.exitCode = exitCode;
