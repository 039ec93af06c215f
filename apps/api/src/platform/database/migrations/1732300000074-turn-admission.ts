import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A turn's admission in the statement that inserts its run (modules/chat/run-admission.ts,
 * docs/decisions/runtime.md "Admission"). `turn_admission(user, project, max_running, history)` takes the
 * user's row lock, so one user's admissions are serialised, and then — each query of a volatile PL/pgSQL
 * function reads a fresh snapshot — sees every run the lock's previous holder committed: the project's
 * unfinished turn (running or awaiting approval), the user's running turns, the project's current stage
 * and gate, and the last `history` messages for the model's context. `admitted` says whether the caller's
 * INSERT (in the same statement, so under the same lock) may run. One round trip instead of a
 * transaction of six statements.
 */
export class TurnAdmission1732300000074 implements MigrationInterface {
  name = 'TurnAdmission1732300000074';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION turn_admission(p_user integer, p_project integer, p_max_running integer, p_history integer)
      RETURNS TABLE (
        admitted boolean,
        stage varchar,
        awaiting_gate jsonb,
        blocking_id uuid,
        blocking_state varchar,
        running integer,
        recent jsonb
      )
      LANGUAGE plpgsql VOLATILE AS $fn$
      #variable_conflict use_column
      BEGIN
        PERFORM 1 FROM users u WHERE u.id = p_user FOR NO KEY UPDATE;
        RETURN QUERY
          SELECT b.id IS NULL AND n.running < p_max_running, p.stage, p.awaiting_gate, b.id, b.state, n.running, h.recent
          FROM projects p
          LEFT JOIN LATERAL (
            SELECT r.id, r.state FROM runs r
            WHERE r.project_id = p.id AND r.state IN ('running', 'awaiting_approval') LIMIT 1
          ) b ON true
          CROSS JOIN LATERAL (
            SELECT count(*)::integer AS running FROM runs r WHERE r.owner_id = p_user AND r.state = 'running'
          ) n
          CROSS JOIN LATERAL (
            SELECT coalesce(jsonb_agg(jsonb_build_object('role', m.role, 'content', m.content) ORDER BY m.id), '[]'::jsonb) AS recent
            FROM (
              SELECT m.id, m.role, m.content FROM messages m
              WHERE m.project_id = p.id AND m.content <> '' ORDER BY m.id DESC LIMIT p_history
            ) m
          ) h
          WHERE p.id = p_project;
      END
      $fn$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION turn_admission(integer, integer, integer, integer)`);
  }
}
