// Saving the editor's draft: validated first with the shared validateGraph (nothing is sent while it
// has errors), then saved with the graph version it was loaded at (optimistic concurrency). The
// server's warnings, or its 400 problems, are kept to be shown on the canvas.
import { useCallback, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { validateGraph, type ValidateGraphContext } from '@service/workflow-graph';
import { useToast } from '../../../shared/components/toast';
import { errorMessage, isApiError } from '../../../shared/http';
import type { Banner } from '../components/editor-banners';
import { draftToGraph, mapProblems, type DraftHistory, type ProblemMap } from '../graph-draft';
import { useSaveGraph } from './use-workflows';

export function useGraphSave({
  workflowId,
  loadedVersion,
  readOnly,
  validationCtx,
  histRef,
  setHist,
  setShowProblems,
}: {
  workflowId: number;
  /** The graph version the editor opened. */
  loadedVersion: number;
  readOnly: boolean;
  validationCtx: ValidateGraphContext;
  histRef: RefObject<DraftHistory>;
  setHist: Dispatch<SetStateAction<DraftHistory>>;
  setShowProblems: Dispatch<SetStateAction<boolean>>;
}) {
  const toast = useToast();
  const saveGraph = useSaveGraph(workflowId);
  const [version, setVersion] = useState(loadedVersion);
  const [serverProblems, setServerProblems] = useState<ProblemMap | null>(null);
  const [banner, setBanner] = useState<Banner | null>(null);

  const save = useCallback(() => {
    if (readOnly || saveGraph.isPending) return;
    const sent = histRef.current.draft;
    const payload = draftToGraph(sent);
    const check = validateGraph(payload, validationCtx);
    if (check.errors.length > 0) {
      setBanner({ kind: 'blocked', count: check.errors.length });
      setShowProblems(true);
      return;
    }
    setBanner(null);
    saveGraph.mutate(
      { ...payload, version },
      {
        onSuccess: (saved) => {
          setVersion(saved.version);
          setHist((h) => ({ ...h, saved: sent, lastKey: null }));
          setServerProblems(saved.warnings && saved.warnings.length ? mapProblems(sent, [], saved.warnings) : null);
          toast.show(`Saved — version ${saved.version}`);
        },
        onError: (err) => {
          if (isApiError(err) && err.status === 409) {
            setBanner({ kind: 'conflict' });
          } else if (isApiError(err) && err.status === 400) {
            setServerProblems(mapProblems(sent, err.errors, []));
            setBanner({ kind: 'invalid', message: err.detail || 'The server rejected the graph.' });
            setShowProblems(true);
          } else {
            setBanner({ kind: 'error', message: errorMessage(err) });
          }
        },
      },
    );
  }, [histRef, readOnly, saveGraph, setHist, setShowProblems, toast, validationCtx, version]);

  return { save, saving: saveGraph.isPending, version, serverProblems, banner, setBanner };
}
