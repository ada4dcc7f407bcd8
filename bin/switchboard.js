#!/usr/bin/env node
// The `switchboard` command. Plain JavaScript (and no top-level await) so that an old Node can
// still parse it and say why it cannot run the TypeScript sources, which need Node 24's type stripping.
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= 24)) {
  process.stderr.write(`switchboard needs Node.js 24 or newer; this is Node.js ${process.versions.node}.\n`);
  process.exit(1);
}
import('../src/cli/main.ts').catch((error) => {
  process.stderr.write(`switchboard: failed to start: ${error && error.message ? error.message : String(error)}\n`);
  process.exit(1);
});
