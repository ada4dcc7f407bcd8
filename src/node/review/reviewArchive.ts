/**
 * Decided reviews, kept in `$SWITCHBOARD_HOME/reviews.db` (node:sqlite, WAL, 0600) so the decided
 * list survives restarts. A file of its own rather than a table in switchboard.db: the History
 * database treats any table it does not know as a sign the file is foreign and moves the whole
 * file aside, and two subsystems migrating one schema would have to coordinate every release.
 *
 * A corrupt or foreign file is renamed to `reviews.db.corrupt-<timestamp>` and a fresh one is
 * started; if even that fails, decided reviews are kept in memory for this run (and a warning
 * logged) rather than failing reviews themselves.
 */
import { chmodSync, closeSync, existsSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ReviewBinaryInfo, ReviewChange, ReviewDecision, ReviewItem, ReviewSource, ReviewSummary } from '../../common/api/reviewContract.ts';
import { ReviewConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { PRIVATE_FILE_MODE } from '../paths.ts';

export const reviewArchiveFileName = 'reviews.db';

export function reviewArchivePath(dataDir: string): string {
  return join(dataDir, reviewArchiveFileName);
}

const ArchiveConstants = {
  /** PRAGMA application_id: "SwRv", so a foreign SQLite file is told apart from ours. */
  applicationId: 0x53775276,
  /** How long a write waits for another connection's lock (a second app instance on the same data dir). */
  busyTimeoutMs: 5_000,
} as const;

/** Forward migrations: `migrations[n]` takes `user_version` n to n + 1. Never edit a shipped one. */
const migrations: ReadonlyArray<(db: DatabaseSync) => void> = [
  (db) =>
    db.exec(`
      CREATE TABLE review_decisions (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        title TEXT NOT NULL,
        path TEXT NOT NULL,
        outside_workspace INTEGER NOT NULL,
        change TEXT NOT NULL,
        binary TEXT,
        added INTEGER NOT NULL,
        removed INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        decision TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        decided_at INTEGER NOT NULL,
        comment TEXT,
        edited INTEGER NOT NULL,
        old_contents TEXT,
        new_contents TEXT,
        final_contents TEXT,
        unified_diff TEXT NOT NULL
      );
      CREATE INDEX review_decisions_decided_at ON review_decisions (decided_at);
    `),
];

interface Row {
  id: string;
  source: string;
  title: string;
  path: string;
  outside_workspace: number;
  change: string;
  binary: string | null;
  added: number;
  removed: number;
  created_at: number;
  decision: string;
  decided_by: string;
  decided_at: number;
  comment: string | null;
  edited: number;
  old_contents: string | null;
  new_contents: string | null;
  final_contents: string | null;
  unified_diff: string;
}

const summaryColumns =
  'id, source, title, path, outside_workspace, change, binary, added, removed, created_at, decision, decided_by, decided_at, comment, edited';

export class ReviewArchive implements IDisposable {
  readonly #path: string | null;
  readonly #logger: ILogger;
  #db: DatabaseSync | null = null;
  /** Where the file was moved when it could not be opened, for the log and tests. */
  movedAside: string | null = null;

  /** `path` null: keep decided reviews in memory only. */
  constructor(options: { path: string | null; logger: ILogger }) {
    this.#path = options.path;
    this.#logger = options.logger;
  }

  open(): void {
    if (this.#db) return;
    if (this.#path === null) {
      this.#db = openPrepared(':memory:');
      return;
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        createPrivateFile(this.#path);
        this.#db = openPrepared(this.#path);
        tightenModes(this.#path);
        return;
      } catch (error) {
        if (attempt === 0 && existsSync(this.#path)) {
          this.movedAside = moveAside(this.#path);
          this.#logger.warn('reviews database is corrupt or not ours: moved aside, starting a new one', { path: this.#path, movedAside: this.movedAside, error: String(error) });
          continue;
        }
        this.#logger.error('cannot open the reviews database; decided reviews are kept in memory until the app quits', { path: this.#path, error: String(error) });
      }
    }
    this.#db = openPrepared(':memory:');
  }

  /** Store a decided review; older ones past ReviewConstants.maxDecidedReviews are pruned. */
  add(item: ReviewItem & { decision: ReviewDecision }): void {
    const db = this.#requireDb();
    const { decision } = item;
    db.prepare(
      `INSERT OR REPLACE INTO review_decisions (id, source, title, path, outside_workspace, change, binary, added, removed, created_at,
         decision, decided_by, decided_at, comment, edited, old_contents, new_contents, final_contents, unified_diff)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      item.id,
      JSON.stringify(item.source),
      item.title,
      item.path,
      item.outsideWorkspace ? 1 : 0,
      item.change,
      item.binary ? JSON.stringify(item.binary) : null,
      item.stats.added,
      item.stats.removed,
      item.createdAt,
      decision.decision,
      decision.by,
      decision.at,
      decision.comment,
      decision.edited ? 1 : 0,
      item.oldContents,
      item.newContents,
      decision.finalContents,
      decision.unifiedDiff,
    );
    db.prepare(
      `DELETE FROM review_decisions WHERE id IN (
         SELECT id FROM review_decisions ORDER BY decided_at DESC, id DESC LIMIT -1 OFFSET ?)`,
    ).run(ReviewConstants.maxDecidedReviews);
  }

  /** Decided reviews, newest decision first; `before`: only those decided before this time. */
  list(limit: number, before?: number): ReviewSummary[] {
    const db = this.#requireDb();
    const rows = (
      before === undefined
        ? db.prepare(`SELECT ${summaryColumns} FROM review_decisions ORDER BY decided_at DESC, id DESC LIMIT ?`).all(limit)
        : db.prepare(`SELECT ${summaryColumns} FROM review_decisions WHERE decided_at < ? ORDER BY decided_at DESC, id DESC LIMIT ?`).all(before, limit)
    ) as unknown as Row[];
    return rows.map(toSummary);
  }

  get(id: string): ReviewItem | null {
    const row = this.#requireDb().prepare('SELECT * FROM review_decisions WHERE id = ?').get(id) as unknown as Row | undefined;
    if (!row) return null;
    const summary = toSummary(row);
    return {
      ...summary,
      oldContents: row.old_contents,
      newContents: row.new_contents,
      decision: { ...summary.decision!, finalContents: row.final_contents, unifiedDiff: row.unified_diff },
    };
  }

  dispose(): void {
    try {
      this.#db?.close();
    } catch (error) {
      this.#logger.warn('closing the reviews database failed', { error: String(error) });
    }
    this.#db = null;
  }

  #requireDb(): DatabaseSync {
    if (!this.#db) this.open();
    return this.#db!;
  }
}

function toSummary(row: Row): ReviewSummary {
  return {
    id: row.id,
    source: JSON.parse(row.source) as ReviewSource,
    title: row.title,
    path: row.path,
    outsideWorkspace: row.outside_workspace === 1,
    change: row.change as ReviewChange,
    binary: row.binary === null ? null : (JSON.parse(row.binary) as ReviewBinaryInfo),
    stats: { added: row.added, removed: row.removed },
    state: row.decision === 'accepted' ? 'accepted' : 'rejected',
    createdAt: row.created_at,
    decision: {
      decision: row.decision === 'accepted' ? 'accepted' : 'rejected',
      by: row.decided_by,
      at: row.decided_at,
      comment: row.comment,
      edited: row.edited === 1,
    },
  };
}

function openPrepared(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: ArchiveConstants.busyTimeoutMs });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map((row) => row.name);
    const applicationId = (db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id;
    if (applicationId !== ArchiveConstants.applicationId && (applicationId !== 0 || tables.length > 0)) {
      throw new Error(`not a Switchboard reviews database (application_id ${applicationId}, tables: ${tables.slice(0, 5).join(', ') || 'none'})`);
    }
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version > migrations.length) throw new Error(`reviews database schema version ${version} is newer than this Switchboard's ${migrations.length}`);
    if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = NORMAL; PRAGMA application_id = ${ArchiveConstants.applicationId};`);
    for (let from = version; from < migrations.length; from++) {
      db.exec('BEGIN IMMEDIATE');
      try {
        migrations[from]!(db);
        db.exec(`PRAGMA user_version = ${from + 1}`);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Create the file 0600 before SQLite does (SQLite would apply the umask; the -wal/-shm files copy this mode). */
function createPrivateFile(path: string): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

function tightenModes(path: string): void {
  if (process.platform === 'win32') return;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, PRIVATE_FILE_MODE);
    } catch {
      // -wal/-shm exist only while a connection is open; a missing one has nothing to tighten.
    }
  }
}

function moveAside(path: string): string {
  const target = `${path}.corrupt-${Date.now()}`;
  renameSync(path, target);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}
