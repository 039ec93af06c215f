// One chat turn at a time over the event stream: folds events into the live transcript and keeps the
// server state in the query cache fresh (workflow state, files, history) as events arrive.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { StreamEventData, WorkflowState } from '../../../shared/api-types';
import { useEventStream, type StreamEvent } from '../../../shared/use-event-stream';
import { runApi, runKeys, streamUrl, type StreamParams } from '../api/run-api';
import { failTurn, newTurn, reduceTurn, stopTurn, turnSummary, type Turn } from '../turn-transcript';

const ENDED_POLLS = 40;
const ENDED_POLL_MS = 250;

/** Resolves when the project's running turn is no longer `runId` (or after ~10 s, whatever happened). */
async function waitUntilEnded(slug: string, runId: string): Promise<void> {
  for (let i = 0; i < ENDED_POLLS; i++) {
    const st = await runApi.state(slug).catch(() => null);
    if (!st || st.running_run_id !== runId) return;
    await new Promise((r) => setTimeout(r, ENDED_POLL_MS));
  }
}

export function useTurnStream(projectSlug: string | null) {
  const qc = useQueryClient();
  const [turn, setTurn] = useState<Turn | null>(null);
  const [changedPaths, setChangedPaths] = useState<ReadonlySet<string>>(() => new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const counter = useRef(0);
  /** Runs this page has shown (sent or re-attached): never attach to one twice. */
  const seenRuns = useRef(new Set<string>());
  const slugRef = useRef(projectSlug);
  useEffect(() => {
    slugRef.current = projectSlug;
  }, [projectSlug]);

  const patchState = useCallback(
    (patch: Partial<WorkflowState>) => {
      const slug = slugRef.current;
      if (!slug) return;
      qc.setQueryData<WorkflowState>(runKeys.state(slug), (old) => (old ? { ...old, ...patch } : old));
    },
    [qc],
  );

  const onEvent = useCallback(
    (ev: StreamEvent) => {
      setTurn((t) => (t ? reduceTurn(t, ev) : t));
      if (ev.runId) seenRuns.current.add(ev.runId);
      const slug = slugRef.current;
      if (!slug) return;
      switch (ev.name) {
        case 'workflow': {
          const d = ev.data as StreamEventData['workflow'];
          patchState({ domain: d.domain, stage: d.stage, pack_id: d.pack_id, awaiting_gate: d.awaiting_gate ?? null });
          break;
        }
        case 'stage': {
          const d = ev.data as StreamEventData['stage'];
          patchState({
            stage: d.to,
            ...(Array.isArray(d.stages) && d.stages.length ? { stages: d.stages } : {}),
            awaiting_gate: null,
          });
          break;
        }
        case 'awaiting_gate':
          patchState({ awaiting_gate: ev.data as StreamEventData['awaiting_gate'] });
          break;
        case 'files_changed': {
          const d = ev.data as StreamEventData['files_changed'];
          const paths = (d.files ?? []).map((f) => f.path);
          setChangedPaths((s) => new Set([...s, ...paths]));
          void qc.invalidateQueries({ queryKey: runKeys.fileList(slug) });
          for (const p of paths) {
            void qc.invalidateQueries({ queryKey: runKeys.file(slug, p) });
            void qc.invalidateQueries({ queryKey: runKeys.revisions(slug, p) });
          }
          break;
        }
        case 'close':
          void Promise.all([
            qc.invalidateQueries({ queryKey: runKeys.state(slug) }),
            qc.invalidateQueries({ queryKey: runKeys.files(slug) }),
            qc.refetchQueries({ queryKey: runKeys.history(slug) }),
          ]).then(() => {
            // History now holds this turn's messages: drop them from the live copy, but keep what history
            // does not show — errors, stage moves (a gate approval) and the token usage — until the next turn.
            setTurn((t) => (t && t.closed ? turnSummary(t) : t));
          });
          break;
      }
    },
    [patchState, qc],
  );

  const stream = useEventStream({ onEvent });
  const { start: startStream, resume: resumeStream, stop: stopStream } = stream;
  const runIdRef = useRef<string | null>(null);
  useEffect(() => {
    runIdRef.current = stream.state.runId;
  }, [stream.state.runId]);

  /**
   * Re-attach to a run in flight (after a reload, or when the server says a turn is already running):
   * replay its events from the start, then follow it live (docs/API.md, "The stream").
   */
  const attach = useCallback(
    (runId: string) => {
      if (seenRuns.current.has(runId)) return;
      seenRuns.current.add(runId);
      counter.current += 1;
      setTurn({ ...newTurn(`turn-${counter.current}`, '', false), runId });
      resumeStream(`${runId}:0`);
    },
    [resumeStream],
  );

  /**
   * Follow a run again after a decision on its pending tool call: its events after `afterSeq` (the last
   * event of the waiting turn) — the `status resumed`, the decided call's result, the rest of the turn.
   */
  const follow = useCallback(
    (runId: string, afterSeq: number) => {
      seenRuns.current.add(runId);
      counter.current += 1;
      setNotice(null);
      setTurn({ ...newTurn(`turn-${counter.current}`, '', false), runId });
      patchState({ awaiting_approval: null });
      resumeStream(`${runId}:${afterSeq}`);
    },
    [resumeStream, patchState],
  );

  // The connection failed for good (after retries): show it in the turn. A `409 turn_in_progress`
  // means another turn of this project is running (another tab, or before a reload): show that one.
  useEffect(() => {
    if (stream.state.status !== 'failed') return;
    const slug = slugRef.current;
    if (stream.state.httpStatus === 409 && stream.state.errorCode?.includes('turn_in_progress') && slug) {
      setNotice(
        'Another turn is still running on this project: it is shown below. Send your message when it has finished.',
      );
      setTurn(null);
      void runApi.state(slug).then(
        (st) => {
          qc.setQueryData(runKeys.state(slug), st);
          if (st.running_run_id) attach(st.running_run_id);
        },
        () => undefined,
      );
      return;
    }
    const message = stream.state.error ?? 'The connection to the run was lost.';
    setTurn((t) => (t ? failTurn(t, message) : t));
  }, [stream.state.status, stream.state.error, stream.state.httpStatus, stream.state.errorCode, attach, qc]);

  const send = useCallback(
    (params: Omit<StreamParams, 'project_slug'>) => {
      const slug = slugRef.current;
      if (!slug) return;
      counter.current += 1;
      setNotice(null);
      setTurn(newTurn(`turn-${counter.current}`, params.message, !!params.advance));
      startStream(streamUrl({ ...params, project_slug: slug }));
    },
    [startStream],
  );

  const stop = useCallback(() => {
    const runId = runIdRef.current;
    stopStream();
    setTurn((t) => (t ? stopTurn(t) : t));
    const slug = slugRef.current;
    if (!slug) return;
    void qc.invalidateQueries({ queryKey: runKeys.history(slug) });
    // once the stopped run is stored (its turn no longer the project's running one), history shows how it
    // ended, partial reply included, and the chat panel drops the live copy (chat-panel.tsx, withoutStored)
    if (runId)
      void runApi
        .cancelRun(runId)
        .catch(() => undefined)
        .then(() => waitUntilEnded(slug, runId))
        .then(() => qc.invalidateQueries({ queryKey: runKeys.history(slug) }));
  }, [qc, stopStream]);

  const dismiss = useCallback(() => {
    setTurn(null);
    setNotice(null);
  }, []);

  // Switching project abandons the live view (the run itself goes on server-side).
  const shownSlug = useRef(projectSlug);
  useEffect(() => {
    if (shownSlug.current === projectSlug) return;
    shownSlug.current = projectSlug;
    stopStream();
    setTurn(null);
    setNotice(null);
    setChangedPaths(new Set());
  }, [projectSlug, stopStream]);

  return {
    turn,
    send,
    attach,
    follow,
    notice,
    stop,
    dismiss,
    streaming: stream.active,
    streamState: stream.state,
    changedPaths,
  };
}
