/**
 * Forward schema migrations for our SQLite files (switchboard.db's history, reviews.db): the
 * schema version is `PRAGMA user_version`, and `migrations[n]` takes it from n to n + 1.
 */
import type { DatabaseSync } from 'node:sqlite';

/** One forward step. Never edit one that has shipped; add one. */
export type Migration = (db: DatabaseSync) => void;

/** The file's schema version (0 for a new, empty file). */
export function schemaVersion(db: DatabaseSync): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
}

/**
 * Brings `db` from `version` to `migrations.length`. Each step and its version bump share one
 * IMMEDIATE transaction, so a step that fails leaves the file whole at the last version that
 * succeeded (and the next start retries from there) instead of half-migrated.
 * @param what names the database in the error: `history schema migration 1 → 2 failed: …`.
 */
export function applyMigrations(db: DatabaseSync, migrations: readonly Migration[], version: number, what: string): void {
  for (let from = version; from < migrations.length; from++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      migrations[from]!(db);
      db.exec(`PRAGMA user_version = ${from + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(`${what} schema migration ${from} → ${from + 1} failed: ${describeSqliteError(error)}`, { cause: error });
    }
  }
}

/** An error's message with SQLite's own text for its code (`errstr`) when the message lacks it. */
export function describeSqliteError(error: unknown): string {
  if (error instanceof Error) {
    const errstr = (error as { errstr?: string }).errstr;
    return errstr && !error.message.includes(errstr) ? `${error.message} (${errstr})` : error.message;
  }
  return String(error);
}
