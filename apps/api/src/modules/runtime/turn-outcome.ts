/**
 * How a turn that did not finish is reported (docs/decisions/runtime.md): the stream error code and a
 * message fit for the client — every known key, and anything shaped like one, scrubbed out of it.
 */
import { Logger } from '@nestjs/common';
import { errorInfo } from '../../platform/logging/error-info';
import { ProviderError } from './providers/provider';
import { ReplyTooLarge } from './react-loop';
import type { TurnResult } from './runtime.types';

/** A turn failure with its stream error code. */
export class TurnFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Outcome = { state: TurnResult['state']; error: { code: string; message: string } };

/** The end state and error of a turn stopped by `e` (or by its signal: cancel, timeout, shutdown). */
export function classifyFailure(e: unknown, signal: AbortSignal, runId: string, secrets: readonly string[]): Outcome {
  if (signal.aborted) {
    const reason = signal.reason as { code?: unknown } | undefined;
    if (reason && typeof reason === 'object' && reason.code === 'shutdown') {
      return {
        state: 'interrupted',
        error: {
          code: 'server_shutdown',
          message: 'The server is shutting down, so this run was stopped. Send the message again once it is back.',
        },
      };
    }
    if (reason && typeof reason === 'object' && reason.code === 'turn_timeout') {
      return {
        state: 'error',
        error: { code: 'turn_timeout', message: 'The turn took longer than its time limit and was stopped.' },
      };
    }
    return { state: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled.' } };
  }
  if (e instanceof TurnFailure)
    return { state: 'error', error: { code: e.code, message: scrubSecrets(e.message, secrets) } };
  if (e instanceof ReplyTooLarge) return { state: 'error', error: { code: 'reply_too_large', message: e.message } };
  if (e instanceof ProviderError) {
    return { state: 'error', error: { code: e.code, message: scrubSecrets(e.message, secrets) } };
  }
  // a bug or an infrastructure failure (the database under a port): never lost, logged with stack and cause
  new Logger('TurnRunner').error({ err: errorInfo(e), run_id: runId }, 'turn failed unexpectedly');
  return { state: 'error', error: { code: 'internal', message: 'The turn failed unexpectedly.' } };
}

/** Removes every known key, and anything shaped like one, from a message meant for the client. */
export function scrubSecrets(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out
    .replace(/\b(?:sk|pk|rk|xai|gsk|key)-[A-Za-z0-9_-]{8,}/g, '[redacted]')
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]');
}

/** A provider failure in words: what happened, then which provider and model (and status) it was. */
export function providerMessage(e: ProviderError, provider: string, model: string): string {
  const status = e.status !== undefined && !e.message.includes(String(e.status)) ? `, HTTP ${e.status}` : '';
  return `${e.message} (provider ${provider}, model ${model || 'unnamed'}${status})`;
}
