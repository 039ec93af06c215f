/**
 * A resumed run numbers its events from this far above the last stored one: a client may have seen events
 * the crash kept from being stored (those since the last checkpoint or flush — at most one model call's
 * stream, ≤ 1,048,576 one-character deltas, and a few more), and its Last-Event-ID must not fall among
 * the new attempt's seqs. The numbering stays increasing; `status {state: "resumed"}` comes first after
 * the gap. (seq is an integer column: MAX_RESUME_ATTEMPTS gaps fit many times over.)
 */
export const RESUME_SEQ_GAP = 1_100_000;
