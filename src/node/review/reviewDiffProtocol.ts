/** Messages between the review queue and its diff worker thread (see reviewDiffer.ts and reviewDiffWorker.ts). */

/**
 * One side of a diff: its text, or the text's UTF-8 bytes (transferred rather than cloned: a copy
 * of the bytes costs the Hub's thread far less than serializing a 10 MiB string). null: that side
 * does not exist.
 */
export type DiffSideData = string | Uint8Array;

export type DiffJob =
  | { jobId: number; kind: 'stats'; oldText: DiffSideData; newText: DiffSideData }
  | { jobId: number; kind: 'unified'; path: string; oldText: DiffSideData | null; newText: DiffSideData | null };

export type DiffJobResult =
  | { jobId: number; ok: true; stats: { added: number; removed: number; approximate?: true } }
  | { jobId: number; ok: true; unified: string }
  | { jobId: number; ok: false; message: string };
