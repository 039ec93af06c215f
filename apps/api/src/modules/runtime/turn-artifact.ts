/**
 * A node's artifact (docs/decisions/runtime.md, "The walk"): the agent's final reply written to the path in
 * `config.artifact`. The write is keyed (run, visit), so a resumed run that finds it landed before the
 * crash does not write it again (docs/decisions/runtime.md, "Durable runs").
 */
import type { GraphNode } from '@service/workflow-graph';
import { DomainError } from '../../platform/errors/domain-error';
import { normalizeWorkspacePath } from '../projects/workspace-path';
import type { FileChangeInfo, Workspace } from './runtime.types';
import { MAX_FILE_BYTES } from './tools';
import { TurnFailure } from './turn-outcome';

/** The node's artifact as a normalised workspace path; a path the helper refuses counts as none. */
export function artifactOf(node: GraphNode): string | null {
  const a = node.config?.artifact;
  if (typeof a !== 'string' || !a.trim()) return null;
  try {
    return normalizeWorkspacePath(a.trim());
  } catch {
    return null;
  }
}

/** Writes the reply as the artifact; a reply over 1 MiB or a refused write is `artifact_failed`. */
export async function writeArtifact(
  ws: Workspace,
  resumed: boolean,
  artifact: string,
  reply: string,
  key: string,
): Promise<FileChangeInfo> {
  if (Buffer.byteLength(reply, 'utf8') > MAX_FILE_BYTES)
    throw new TurnFailure(
      'artifact_failed',
      `The reply is too large to store as ${artifact} (a file is at most 1 MiB).`,
    );
  try {
    const landed = resumed && ws.landed ? await ws.landed(key) : null;
    return landed ?? (await ws.write(artifact, reply, key));
  } catch (e) {
    if (e instanceof DomainError)
      throw new TurnFailure('artifact_failed', `Could not store the reply as ${artifact}: ${e.detail}`);
    throw e;
  }
}

/**
 * After the node's agent answered: its reply stored as the artifact, unless the workspace is read-only,
 * the reply is empty or the agent wrote the file itself. Null when nothing changed.
 */
export async function storeArtifact(
  ws: Workspace,
  resumed: boolean,
  artifact: string | null,
  reply: string,
  written: ReadonlySet<string>,
  key: string,
): Promise<FileChangeInfo | null> {
  if (!artifact || ws.readOnly || !reply.trim() || written.has(artifact)) return null;
  const change = await writeArtifact(ws, resumed, artifact, reply, key);
  return change.change === 'unchanged' ? null : change;
}
