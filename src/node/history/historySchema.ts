/**
 * The History schema as a list of forward migrations: `migrations[n]` takes a database from
 * `PRAGMA user_version = n` to `n + 1`. Never edit a migration that has shipped; add one.
 *
 * Layout, and why:
 * - `sessions`: one row per recorded terminal session (or imported cast). The public id is text
 *   (`s-…`); the integer `key` keys every other table, so output rows stay small. Rows of other
 *   tables are deleted with their session explicitly (an FTS table cannot take part in cascades).
 * - `events`: output chunks (raw bytes as BLOBs), resize and input markers, in recording order.
 *   The integer primary key is the event's `seq`. `offset` is the absolute byte offset in the
 *   terminal's output (PtySession offsets), so command offsets point into stored output. One
 *   index, `(session, offset)`, serves reads by offset, replay in order (`ORDER BY offset, id`:
 *   offsets never decrease within a session) and pruning a session's oldest output.
 * - `commands`: shell-integration command events.
 * - `search` (FTS5) indexes ANSI-stripped text blocks and command lines; `search_blocks` holds
 *   each block's metadata under the same rowid: the exact byte range of output it covers (or the
 *   command it is), with an index on the session. The text itself is not stored a second time:
 *   the FTS table is contentless (`contentless_delete`, so pruning a 64 MiB session drops its rows
 *   without re-tokenizing their text, which a contentful table must do and which would block the
 *   Hub for seconds), and a hit's snippet is cut from its raw bytes, stripped again (searchQuery.ts).
 */
import type { Migration } from '../sqliteMigrations.ts';

export const migrations: readonly Migration[] = [
  // 0 → 1: sessions, their output and markers, their commands.
  (db) =>
    db.exec(`
      CREATE TABLE sessions (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        terminal_id TEXT,
        name TEXT NOT NULL,
        cwd TEXT,
        file TEXT NOT NULL,
        args TEXT NOT NULL DEFAULT '[]',
        creator_kind TEXT NOT NULL,
        creator_name TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        exit_code INTEGER,
        signal TEXT,
        cols INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        received_input INTEGER NOT NULL DEFAULT 0,
        byte_count INTEGER NOT NULL DEFAULT 0,
        first_offset INTEGER NOT NULL DEFAULT 0,
        end_offset INTEGER NOT NULL DEFAULT 0,
        truncated INTEGER NOT NULL DEFAULT 0,
        command_count INTEGER NOT NULL DEFAULT 0,
        live INTEGER NOT NULL DEFAULT 1,
        source TEXT NOT NULL DEFAULT 'recorded',
        idle_shell INTEGER NOT NULL DEFAULT 0,
        last_event_at INTEGER NOT NULL DEFAULT 0,
        owner_pid INTEGER
      );
      CREATE INDEX sessions_started ON sessions (started_at);
      CREATE INDEX sessions_terminal ON sessions (terminal_id, started_at);

      CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        kind INTEGER NOT NULL,
        at INTEGER NOT NULL,
        offset INTEGER NOT NULL,
        data BLOB,
        cols INTEGER,
        rows INTEGER
      );
      CREATE INDEX events_session_offset ON events (session, offset);

      CREATE TABLE commands (
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        command_line TEXT NOT NULL,
        cwd TEXT,
        exit_code INTEGER,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER
      );
      CREATE INDEX commands_session ON commands (session, id);
      CREATE INDEX commands_started ON commands (started_at);
    `),
  // 1 → 2: the full-text index, fed by the indexer from `indexed_offset` on (sessions recorded before the upgrade get indexed after it).
  (db) =>
    db.exec(`
      ALTER TABLE sessions ADD COLUMN indexed_offset INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE search_blocks (
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        source INTEGER NOT NULL,
        offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL,
        at INTEGER NOT NULL,
        command_id INTEGER
      );
      CREATE INDEX search_blocks_session ON search_blocks (session, offset);
      CREATE VIRTUAL TABLE search USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      -- Index pages that fill the database's 16 KiB pages, and merging in larger steps: ~40% faster
      -- indexing of terminal output (bench history-ingest), queries as fast.
      INSERT INTO search (search, rank) VALUES ('pgsz', 16000);
      INSERT INTO search (search, rank) VALUES ('automerge', 8);
      INSERT INTO search_blocks (session, source, offset, end_offset, at, command_id)
        SELECT session, 1, start_offset, start_offset, started_at, id FROM commands;
      INSERT INTO search (rowid, text) SELECT b.id, c.command_line FROM search_blocks b JOIN commands c ON c.id = b.command_id;
    `),
  // 2 → 3: sessions closed by crash recovery (the app was killed or crashed while they were live) say so.
  (db) => db.exec('ALTER TABLE sessions ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0'),
];

/** `events.kind` values. */
export const EventKind = { output: 0, resize: 1, input: 2 } as const;
/** `search_blocks.source` values. */
export const SearchSource = { output: 0, command: 1 } as const;

/** Tables that belong to this schema: a database holding other tables is not ours. */
export const knownTables = new Set(['sessions', 'events', 'commands', 'search_blocks', 'search']);
