/**
 * Errors with codes. Services throw `new DomainError('graph.stale_version', detail, extra)`;
 * the problem filter maps the code to an HTTP status and an RFC 9457 body.
 */
export interface FieldProblem {
  field: string;
  message: string;
}

const STATUS_BY_CODE: Record<string, number> = {
  validation: 400,
  bad_request: 400,
  unauthorized: 401,
  'auth.invalid_credentials': 401,
  forbidden: 403,
  'record.system_readonly': 403,
  'origin.cross_site': 403,
  'origin.untrusted_host': 403,
  not_found: 404,
  conflict: 409,
  'setup.already_done': 409,
  'record.duplicate': 409,
  'record.referenced': 409,
  'user.owns_records': 409,
  'graph.stale_version': 409,
  'workflow.last_stage': 409,
  'run.not_running': 409,
  'run.not_resumable': 409,
  'run.not_rerunnable': 409,
  turn_in_progress: 409,
  approval_pending: 409,
  'run.not_awaiting_approval': 409,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  'stream.too_many': 429,
  'runs.too_many': 429,
  unavailable: 503,
  'mcp.refused': 400,
  'mcp.unreachable': 502,
  'mcp.timeout': 504,
  database_unavailable: 503,
  // a turn that failed, answered by the synchronous chat API (the stream reports these as `error` events)
  'turn.last_stage': 409,
  'turn.unknown_node': 400,
  'turn.empty_message': 400,
  'turn.artifact_failed': 422,
  'turn.no_entry_node': 409,
  'turn.agent_missing': 409,
  'turn.cancelled': 409,
  'turn.max_iterations': 422,
  'turn.node_limit': 422,
  'turn.turn_timeout': 504,
  'turn.provider_timeout': 504,
  'turn.provider_http': 502,
  'turn.provider_protocol': 502,
  'turn.provider_refused': 502,
  'turn.provider_aborted': 409,
  'turn.internal': 500,
  'turn.reply_too_large': 502,
  'turn.outcome_not_stored': 503,
  'turn.server_shutdown': 503,
};

export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
    /** extra members of the problem body (e.g. `run_id`) */
    readonly extra?: Record<string, string | number>,
  ) {
    super(detail);
  }
  get status(): number {
    return (
      STATUS_BY_CODE[this.code] ??
      (this.code.endsWith('.not_found') ? 404 : this.code.startsWith('validation') ? 400 : 400)
    );
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const invalid = (errors: FieldProblem[], detail = 'The request has invalid fields.') =>
  new DomainError('validation', detail, errors);
