import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { applyMigrations, type Migration, schemaVersion } from '../../../src/node/sqliteMigrations.ts';

const tables = (db: DatabaseSync) => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);

const steps: Migration[] = [(db) => db.exec('CREATE TABLE a (x)'), (db) => db.exec('CREATE TABLE b (y)')];

describe('applyMigrations', () => {
  test('brings a new file to the last version, and an older one from where it stands', () => {
    const db = new DatabaseSync(':memory:');
    applyMigrations(db, steps.slice(0, 1), schemaVersion(db), 'test');
    assert.equal(schemaVersion(db), 1);
    applyMigrations(db, steps, schemaVersion(db), 'test');
    assert.equal(schemaVersion(db), 2);
    assert.deepEqual(tables(db), ['a', 'b']);
    applyMigrations(db, steps, schemaVersion(db), 'test'); // nothing left to do
    assert.equal(schemaVersion(db), 2);
    db.close();
  });

  test('a failing step is rolled back whole and the file stays at the last good version', () => {
    const db = new DatabaseSync(':memory:');
    const failing: Migration[] = [...steps, (db) => db.exec('CREATE TABLE c (z); INSERT INTO nowhere VALUES (1)')];
    assert.throws(() => applyMigrations(db, failing, 0, 'reviews'), (error: Error) => {
      assert.match(error.message, /^reviews schema migration 2 → 3 failed: no such table: nowhere/);
      assert.ok(error.cause instanceof Error);
      return true;
    });
    assert.equal(schemaVersion(db), 2);
    assert.deepEqual(tables(db), ['a', 'b']);
    assert.equal(db.isTransaction, false);
    db.close();
  });
});
