import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileLimited } from '../../../../src/node/review/fileContent.ts';
import { applyReviewedChange, FileWriteErrors, writeFileAtomically } from '../../../../src/node/review/fileWriter.ts';

describe('writing reviewed and edited files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-file-writer-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes through a symbolic link: the link stays a link, its target gets the contents and keeps its mode', async () => {
    const target = join(dir, 'real.sh');
    writeFileSync(target, 'echo old\n');
    chmodSync(target, 0o750);
    const link = join(dir, 'link.sh');
    symlinkSync('real.sh', link);
    await writeFileAtomically(link, 'echo new\n');
    assert.equal(lstatSync(link).isSymbolicLink(), true);
    assert.equal(readlinkSync(link), 'real.sh');
    assert.equal(readFileSync(target, 'utf8'), 'echo new\n');
    assert.equal(statSync(target).mode & 0o777, 0o750);
  });

  it('refuses to write through a link to a missing file', async () => {
    const link = join(dir, 'dangling.txt');
    symlinkSync(join(dir, 'nowhere', 'file.txt'), link);
    await assert.rejects(writeFileAtomically(link, 'x'), /symbolic link to a file that does not exist/);
    assert.equal(lstatSync(link).isSymbolicLink(), true);
  });

  it('applies a reviewed change only over the reviewed bytes', async () => {
    const path = join(dir, 'reviewed.txt');
    writeFileSync(path, 'reviewed\n');
    await applyReviewedChange(path, Buffer.from('applied\n'), Buffer.from('reviewed\n'));
    assert.equal(readFileSync(path, 'utf8'), 'applied\n');
    await assert.rejects(applyReviewedChange(path, Buffer.from('again\n'), Buffer.from('reviewed\n')), (error: Error) => error.message === FileWriteErrors.changedSinceReview);
    await assert.rejects(applyReviewedChange(join(dir, 'gone.txt'), null, Buffer.from('x')), (error: Error) => error.message === FileWriteErrors.changedSinceReview);
    await applyReviewedChange(path, null, Buffer.from('applied\n'));
    assert.throws(() => statSync(path), /ENOENT/);
  });

  it('refuses a FIFO at once instead of blocking on it', { timeout: 20_000 }, async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(readFileLimited(fifo, 'the file'), /the file .*pipe is not a regular file/);
  });
});
