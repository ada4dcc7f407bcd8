/**
 * The History browser's filter fields, as typed, and how they become the contract's
 * `HistoryFilter`. Pure, so the mapping (local days, ~ paths, creator kinds) is unit-tested.
 */
import type { HistoryFilter } from '../../../src/common/api/historyContract.ts';

export type ExitFilter = '' | 'success' | 'failure' | 'running';

/** What the filter fields hold: dates as `<input type="date">` gives them (YYYY-MM-DD), '' for "any". */
export interface FilterFields {
  fromDate: string;
  toDate: string;
  cwd: string;
  /** '' (anyone), a creator kind ('person', 'agent', 'remote') or a creator name. */
  creator: string;
  exit: ExitFilter;
}

export const emptyFilterFields: FilterFields = { fromDate: '', toDate: '', cwd: '', creator: '', exit: '' };

export type FilterResult = { ok: true; filter: HistoryFilter | undefined } | { ok: false; error: string };

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Local midnight at the start of a YYYY-MM-DD day, or null when it is not a real date. */
export function localDayStart(value: string): number | null {
  const match = datePattern.exec(value);
  if (!match) return null;
  const [year, month, dayOfMonth] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, dayOfMonth);
  // new Date rolls 2024-02-31 over into March: such a day does not exist.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== dayOfMonth) return null;
  return date.getTime();
}

/** Local midnight at the start of the day after a YYYY-MM-DD day (the exclusive end of "up to that day"). */
function localDayEnd(value: string): number | null {
  const start = localDayStart(value);
  if (start === null) return null;
  const date = new Date(start);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
}

/** "~/src/" → "/home/ada/src": the store matches absolute folders. */
function normalizeFolder(value: string, homeDir: string | undefined): string {
  let folder = value.trim();
  if (homeDir && (folder === '~' || folder.startsWith('~/'))) folder = `${homeDir.replace(/\/+$/, '')}${folder.slice(1)}`;
  if (folder.length > 1) folder = folder.replace(/\/+$/, '');
  return folder;
}

/**
 * The filter for `history.list`, `history.search` and `history.commands`. Both dates are whole
 * local days and inclusive: "from 3 Mar to 3 Mar" is everything started on 3 March.
 */
export function toHistoryFilter(fields: FilterFields, homeDir: string | undefined): FilterResult {
  const filter: HistoryFilter = {};
  if (fields.fromDate) {
    const from = localDayStart(fields.fromDate);
    if (from === null) return { ok: false, error: `"${fields.fromDate}" is not a date` };
    filter.from = from;
  }
  if (fields.toDate) {
    const to = localDayEnd(fields.toDate);
    if (to === null) return { ok: false, error: `"${fields.toDate}" is not a date` };
    filter.to = to;
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
    return { ok: false, error: 'The start date is after the end date' };
  }
  const cwd = normalizeFolder(fields.cwd, homeDir);
  if (cwd) filter.cwd = cwd;
  const creator = fields.creator.trim();
  if (creator) filter.creator = creator;
  if (fields.exit) filter.exit = fields.exit;
  return { ok: true, filter: Object.keys(filter).length > 0 ? filter : undefined };
}

export function hasActiveFilters(fields: FilterFields): boolean {
  return fields.fromDate !== '' || fields.toDate !== '' || fields.cwd.trim() !== '' || fields.creator.trim() !== '' || fields.exit !== '';
}

/**
 * Appends a fetched page to what is listed, by id: a session that moved between pages (it was
 * listed live and then ended) is not shown twice, and the list stays newest first.
 */
export function mergePage<T extends { startedAt: number }>(shown: readonly T[], page: readonly T[], key: (item: T) => string | number): T[] {
  const seen = new Set(shown.map(key));
  const merged = [...shown];
  for (const item of page) {
    if (seen.has(key(item))) continue;
    seen.add(key(item));
    merged.push(item);
  }
  return merged.sort((a, b) => b.startedAt - a.startedAt);
}

/**
 * The `before` cursor for the next page: the start of the oldest item listed. The store returns
 * items strictly before it, so items that started in the same millisecond as the cursor on the
 * other side of a page boundary would be skipped; asking one ms later and merging by id avoids
 * that without ever listing an item twice.
 */
export function nextPageCursor(items: readonly { startedAt: number }[]): number | undefined {
  if (items.length === 0) return undefined;
  return items[items.length - 1]!.startedAt + 1;
}

/** Whether a page was full, so another one may follow. */
export function mayHaveMore(pageLength: number, pageSize: number): boolean {
  return pageLength >= pageSize;
}
