/**
 * Decided reviews, kept in `$SWITCHBOARD_HOME/reviews.db` (node:sqlite, WAL, 0600) so the decided
 * list survives restarts. A file of its own rather than a table in switchboard.db: the History
 * database treats any table it does not know as a sign the file is foreign and moves the whole
 * file aside, and two subsystems migrating one schema would have to coordinate every release.
 *
 * Bounded three ways: the newest ReviewConstants.maxDecidedReviews decisions are kept; of those,
 * only the newest keep their contents (old, proposed and final text, the unified diff) up to
 * ReviewConstants.maxDecidedContentBytes in all (the decision that crosses the limit included),
 * older ones keep their metadata and line counts, marked `contentsPruned`; and the queue stores a
 * review bigger than ReviewConstants.maxStoredReviewBytes already pruned, with its diff cut short
 * (writing tens of MB into SQLite takes the Hub's thread most of a second). Contents live in a
 * table of their own, so lists and pruning never read them. Freed pages are reused by later writes
 * (no VACUUM on the Hub's thread).
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
import { applyMigrations, type Migration, schemaVersion } from '../sqliteMigrations.ts';

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
const migrations: readonly Migration[] = [
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
  // 2: contents in a table of their own (listing, paging and pruning never read past megabytes of
  // text stored in the same row), approximate stats, the byte cap, paging by (decided_at, id).
  (db) =>
    db.exec(`
      CREATE TABLE review_contents (
        id TEXT PRIMARY KEY,
        old_contents TEXT,
        new_contents TEXT,
        final_contents TEXT,
        final_is_proposal INTEGER NOT NULL DEFAULT 0,
        unified_diff TEXT NOT NULL
      );
      INSERT INTO review_contents (id, old_contents, new_contents, final_contents, unified_diff)
        SELECT id, old_contents, new_contents, final_contents, unified_diff FROM review_decisions;
      ALTER TABLE review_decisions ADD COLUMN stats_approximate INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE review_decisions ADD COLUMN content_bytes INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE review_decisions ADD COLUMN contents_pruned INTEGER NOT NULL DEFAULT 0;
      UPDATE review_decisions SET content_bytes =
        coalesce(length(CAST(old_contents AS BLOB)), 0) + coalesce(length(CAST(new_contents AS BLOB)), 0) +
        coalesce(length(CAST(final_contents AS BLOB)), 0) + length(CAST(unified_diff AS BLOB));
      ALTER TABLE review_decisions DROP COLUMN old_contents;
      ALTER TABLE review_decisions DROP COLUMN new_contents;
      ALTER TABLE review_decisions DROP COLUMN final_contents;
      ALTER TABLE review_decisions DROP COLUMN unified_diff;
      DROP INDEX review_decisions_decided_at;
      CREATE INDEX review_decisions_order ON review_decisions (decided_at, id);
    `),
];

/** Where a page of the decided list starts: decisions before this one (`id` breaks ties within a millisecond). */
export interface DecidedCursor {
  at: number;
  id?: string | undefined;
}

export interface ReviewArchiveLimits {
  /** Default ReviewConstants.maxDecidedReviews. */
  maxReviews?: number;
  /** Default ReviewConstants.maxDecidedContentBytes. */
  maxContentBytes?: number;
}

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
  stats_approximate: number;
  contents_pruned: number;
}

interface ContentsRow {
  old_contents: string | null;
  new_contents: string | null;
  final_contents: string | null;
  final_is_proposal: number;
  unified_diff: string;
}

const summaryColumns =
  'id, source, title, path, outside_workspace, change, binary, added, removed, stats_approximate, created_at, decision, decided_by, decided_at, comment, edited';

export class ReviewArchive implements IDisposable {
  readonly #path: string | null;
  readonly #logger: ILogger;
  readonly #maxReviews: number;
  readonly #maxContentBytes: number;
  #db: DatabaseSync | null = null;
  /** Where the file was moved when it could not be opened, for the log and tests. */
  movedAside: string | null = null;

  /** `path` null: keep decided reviews in memory only. */
  constructor(options: { path: string | null; logger: ILogger; limits?: ReviewArchiveLimits }) {
    this.#path = options.path;
    this.#logger = options.logger;
    this.#maxReviews = options.limits?.maxReviews ?? ReviewConstants.maxDecidedReviews;
    this.#maxContentBytes = options.limits?.maxContentBytes ?? ReviewConstants.maxDecidedContentBytes;
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

  /** Store a decided review; then prune (see the file comment). */
  add(item: ReviewItem & { decision: ReviewDecision }): void {
    const db = this.#requireDb();
    const { decision } = item;
    // An unedited accept (the usual one) stores the proposal once.
    const finalIsProposal = decision.finalContents !== null && decision.finalContents === item.newContents;
    const storedFinal = finalIsProposal ? null : decision.finalContents;
    const contentBytes = [item.oldContents, item.newContents, storedFinal, decision.unifiedDiff].reduce((sum, text) => sum + (text ? Buffer.byteLength(text, 'utf8') : 0), 0);
    db.exec('BEGIN IMMEDIATE');
    try {
      db.prepare(
        `INSERT OR REPLACE INTO review_decisions (id, source, title, path, outside_workspace, change, binary, added, removed, stats_approximate, created_at,
           decision, decided_by, decided_at, comment, edited, content_bytes, contents_pruned)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        item.stats.approximate ? 1 : 0,
        item.createdAt,
        decision.decision,
        decision.by,
        decision.at,
        decision.comment,
        decision.edited ? 1 : 0,
        contentBytes,
        item.contentsPruned ? 1 : 0,
      );
      db.prepare('INSERT OR REPLACE INTO review_contents (id, old_contents, new_contents, final_contents, final_is_proposal, unified_diff) VALUES (?, ?, ?, ?, ?, ?)').run(
        item.id,
        item.oldContents,
        item.newContents,
        storedFinal,
        finalIsProposal ? 1 : 0,
        decision.unifiedDiff,
      );
      this.#prune(db);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Decided reviews, newest decision first; `before`: only those decided before that cursor. */
  list(limit: number, before?: DecidedCursor): ReviewSummary[] {
    const db = this.#requireDb();
    const order = 'ORDER BY decided_at DESC, id DESC LIMIT ?';
    const rows = (
      before === undefined
        ? db.prepare(`SELECT ${summaryColumns} FROM review_decisions ${order}`).all(limit)
        : before.id === undefined
          ? db.prepare(`SELECT ${summaryColumns} FROM review_decisions WHERE decided_at < ? ${order}`).all(before.at, limit)
          : db.prepare(`SELECT ${summaryColumns} FROM review_decisions WHERE decided_at < ? OR (decided_at = ? AND id < ?) ${order}`).all(before.at, before.at, before.id, limit)
    ) as unknown as Row[];
    return rows.map(toSummary);
  }

  get(id: string): ReviewItem | null {
    const db = this.#requireDb();
    const row = db.prepare(`SELECT ${summaryColumns}, contents_pruned FROM review_decisions WHERE id = ?`).get(id) as unknown as Row | undefined;
    if (!row) return null;
    const contents = db.prepare('SELECT * FROM review_contents WHERE id = ?').get(id) as unknown as ContentsRow | undefined;
    const summary = toSummary(row);
    return {
      ...summary,
      oldContents: contents?.old_contents ?? null,
      newContents: contents?.new_contents ?? null,
      decision: {
        ...summary.decision!,
        finalContents: contents ? (contents.final_is_proposal === 1 ? contents.new_contents : contents.final_contents) : null,
        unifiedDiff: contents?.unified_diff ?? '',
      },
      ...(row.contents_pruned === 1 ? { contentsPruned: true } : {}),
    };
  }

  /**
   * Keep the newest maxReviews decisions, and contents for the newest of them up to
   * maxContentBytes: newest first, a running total of the contents still kept; a decision whose
   * newer ones already fill the budget loses its contents and diff (the one crossing it keeps
   * them). Only the small metadata rows are scanned.
   */
  #prune(db: DatabaseSync): void {
    const dropped = db.prepare('SELECT id FROM review_decisions ORDER BY decided_at DESC, id DESC LIMIT -1 OFFSET ?').all(this.#maxReviews) as Array<{ id: string }>;
    for (const { id } of dropped) {
      db.prepare('DELETE FROM review_decisions WHERE id = ?').run(id);
      db.prepare('DELETE FROM review_contents WHERE id = ?').run(id);
    }
    const overBudget = db
      .prepare(
        `SELECT id FROM (
           SELECT id, content_bytes, SUM(content_bytes) OVER (ORDER BY decided_at DESC, id DESC) AS running
           FROM review_decisions WHERE content_bytes > 0)
         WHERE running - content_bytes >= ?`,
      )
      .all(this.#maxContentBytes) as Array<{ id: string }>;
    for (const { id } of overBudget) {
      db.prepare('DELETE FROM review_contents WHERE id = ?').run(id);
      db.prepare('UPDATE review_decisions SET content_bytes = 0, contents_pruned = 1 WHERE id = ?').run(id);
    }
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

function toSummary(row: Omit<Row, 'contents_pruned'>): ReviewSummary {
  return {
    id: row.id,
    source: JSON.parse(row.source) as ReviewSource,
    title: row.title,
    path: row.path,
    outsideWorkspace: row.outside_workspace === 1,
    change: row.change as ReviewChange,
    binary: row.binary === null ? null : (JSON.parse(row.binary) as ReviewBinaryInfo),
    stats: row.stats_approximate === 1 ? { added: row.added, removed: row.removed, approximate: true } : { added: row.added, removed: row.removed },
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
    const version = schemaVersion(db);
    if (version > migrations.length) throw new Error(`reviews database schema version ${version} is newer than this Switchboard's ${migrations.length}`);
    if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = NORMAL; PRAGMA application_id = ${ArchiveConstants.applicationId};`);
    applyMigrations(db, migrations, version, 'reviews');
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
