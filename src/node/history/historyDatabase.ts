/**
 * Opening `$SWITCHBOARD_HOME/switchboard.db`: WAL mode, the schema version (`PRAGMA user_version`)
 * brought forward by the migrations, and recovery from a file that is not ours.
 *
 * Durability: WAL with `synchronous = NORMAL`. A commit is in the WAL file (the OS page cache)
 * before `COMMIT` returns, so a killed process (`kill -9`, a crash) loses nothing committed, and
 * the next open replays the WAL. Only an OS crash or power loss can lose the last commits (never
 * corrupting the file); `FULL` would fsync every 16 ms batch, which costs more than it protects.
 *
 * A corrupt or foreign file (not a database, another program's database) is renamed to
 * `switchboard.db.corrupt-<timestamp>` (with its -wal/-shm) and a fresh one is created; a database
 * written by a newer Switchboard (a higher schema version) is left untouched and not opened.
 */
import { chmodSync, existsSync, renameSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { ILogger } from '../logger.ts';
import { PRIVATE_FILE_MODE } from '../paths.ts';
import { applyMigrations, describeSqliteError as describe, type Migration } from '../sqliteMigrations.ts';
import { HistoryConstants } from './historyConstants.ts';
import { knownTables, migrations as defaultMigrations } from './historySchema.ts';

export type OpenOutcome =
  | { ok: true; db: DatabaseSync; movedAside: string | null; migratedFrom: number }
  | { ok: false; reason: string; movedAside: string | null };

export interface OpenHistoryDatabaseOptions {
  path: string;
  logger: ILogger;
  /** For tests of the upgrade path; default: the real schema. */
  migrations?: readonly Migration[];
  /** For file names; default Date.now. */
  now?: () => number;
}

/** Thrown by the checks below for a file that is a database but not ours. */
class ForeignDatabaseError extends Error {}
/** A database of our own, from a newer Switchboard. */
class NewerSchemaError extends Error {}

export function openHistoryDatabase(options: OpenHistoryDatabaseOptions): OpenOutcome {
  const { path, logger } = options;
  const migrations = options.migrations ?? defaultMigrations;
  let movedAside: string | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path, { timeout: HistoryConstants.busyTimeoutMs });
      const migratedFrom = prepare(db, migrations);
      tightenModes(path);
      return { ok: true, db, movedAside, migratedFrom };
    } catch (error) {
      closeQuietly(db);
      if (error instanceof NewerSchemaError) {
        logger.warn('history database is from a newer Switchboard; history is not recorded', { path, error: error.message });
        return { ok: false, reason: error.message, movedAside };
      }
      if (attempt === 0 && isNotOurs(error)) {
        movedAside = moveAside(path, (options.now ?? Date.now)());
        logger.warn('history database is corrupt or not ours: moved aside, starting a new one', { path, movedAside, error: describe(error) });
        continue;
      }
      logger.error('cannot open the history database', { path, error: describe(error) });
      return { ok: false, reason: `cannot open ${path}: ${describe(error)}`, movedAside };
    }
  }
  return { ok: false, reason: `cannot open ${path}`, movedAside };
}

/**
 * A second connection to an open history database, for recording. Its page cache is small: a
 * recording connection only appends, and filling a large cache means page faults on fresh memory
 * for every new page (measured: a 32 MiB cache made a flood's commits cost ~3× the CPU of a 2 MiB
 * one), while the Hub's main connection keeps the large cache its searches and the indexer use.
 * Throws when the file cannot be opened.
 */
export function openRecordingConnection(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: HistoryConstants.busyTimeoutMs });
  try {
    configureConnection(db, HistoryConstants.recordingCacheKiB);
    return db;
  } catch (error) {
    closeQuietly(db);
    throw error;
  }
}

/** The per-connection settings every connection of the Hub uses (durability as described above). */
function configureConnection(db: DatabaseSync, cacheKiB: number): void {
  db.exec(`
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = OFF;
    PRAGMA journal_size_limit = ${HistoryConstants.walKeepBytes};
    PRAGMA cache_size = -${cacheKiB};
  `);
}

/** Pragmas, identity check and migrations. Returns the schema version found. */
function prepare(db: DatabaseSync, migrations: readonly Migration[]): number {
  // Reading the schema is what fails on a file that is not a database ("file is not a database").
  const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')").all() as Array<{ name: string }>).map((row) => row.name);
  const version = pragmaNumber(db, 'user_version');
  const applicationId = pragmaNumber(db, 'application_id');
  const ourTables = tables.filter((name) => knownTables.has(name) || name.startsWith('search_') || name.startsWith('sqlite_'));
  if (applicationId !== HistoryConstants.applicationId && (applicationId !== 0 || tables.length > 0)) {
    throw new ForeignDatabaseError(`application_id ${applicationId} is not Switchboard's (tables: ${tables.slice(0, 5).join(', ') || 'none'})`);
  }
  if (ourTables.length !== tables.length) {
    throw new ForeignDatabaseError(`unexpected tables: ${tables.filter((name) => !ourTables.includes(name)).slice(0, 5).join(', ')}`);
  }
  if (version > migrations.length) {
    throw new NewerSchemaError(`switchboard.db has schema version ${version}, newer than this Switchboard's ${migrations.length}; it was left as it is`);
  }
  if (tables.length === 0) {
    // Only possible before the first table exists: sizes pages for what the file mostly holds
    // (output chunks of many KiB), and lets retention give freed pages back to the disk. The page
    // size first: setting auto_vacuum writes the header, which fixes the page size from then on.
    db.exec(`PRAGMA page_size = ${HistoryConstants.pageSize}; PRAGMA auto_vacuum = INCREMENTAL`);
  }
  const journalMode = (db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }).journal_mode;
  if (journalMode.toLowerCase() !== 'wal') throw new Error(`cannot switch the history database to WAL (journal_mode is ${journalMode})`);
  configureConnection(db, HistoryConstants.cacheKiB);
  // A write: only when new (a second process opening the file, the CLI, must not wait for a lock).
  if (applicationId !== HistoryConstants.applicationId) db.exec(`PRAGMA application_id = ${HistoryConstants.applicationId}`);
  applyMigrations(db, migrations, version, 'history');
  return version;
}

function pragmaNumber(db: DatabaseSync, name: string): number {
  const row = db.prepare(`PRAGMA ${name}`).get() as Record<string, number>;
  return Number(row[name] ?? 0);
}

/** SQLITE_CORRUPT (11), SQLITE_NOTADB (26), or our own "not ours" verdict. */
function isNotOurs(error: unknown): boolean {
  if (error instanceof ForeignDatabaseError) return true;
  const errcode = (error as { errcode?: number }).errcode;
  return typeof errcode === 'number' && ((errcode & 0xff) === 11 || (errcode & 0xff) === 26);
}

function moveAside(path: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 2; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  renameSync(path, target);
  // The WAL and shared-memory files belong to the moved file: a new database must not replay them.
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}

/** The database holds terminal output: 0600 like every file in the data dir (SQLite creates it with the umask). */
function tightenModes(path: string): void {
  if (process.platform === 'win32') return;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      chmodSync(path + suffix, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function closeQuietly(db: DatabaseSync | undefined): void {
  try {
    if (db?.isOpen) db.close();
  } catch {
    // Closing a handle that failed to open: nothing more to release.
  }
}

/** Kept under this name for the history modules that log SQLite errors. */
export { describe };
