import assert from 'node:assert/strict';
import { QueryFailedError } from 'typeorm';
import { DomainError } from './domain-error';
import { toProblem } from './problem.filter';

describe('toProblem', () => {
  test('an unexpected error becomes a 500 without internals', () => {
    const err = new Error('connection to db-internal.corp:5432 failed: password authentication failed for user "svc"');
    const { body } = toProblem(err);
    assert.equal(body.status, 500);
    const text = JSON.stringify(body);
    assert.ok(
      !text.includes('db-internal') && !text.includes('password') && !text.includes('stack') && !text.includes('at '),
    );
  });

  test('SQL errors never leak the statement', () => {
    const err = new QueryFailedError('SELECT secret FROM users', [], new Error('syntax error at or near "FROM"'));
    const { body } = toProblem(err);
    assert.equal(body.status, 500);
    assert.ok(!JSON.stringify(body).includes('SELECT'));
  });

  test('domain errors keep their code, status and field errors', () => {
    const { body, headers } = toProblem(
      new DomainError('rate_limited', 'slow down', undefined, { 'Retry-After': '3' }),
    );
    assert.equal(body.status, 429);
    assert.equal(body.code, 'rate_limited');
    assert.equal(headers?.['Retry-After'], '3');
    const v = toProblem(new DomainError('validation', 'bad', [{ field: 'name', message: 'required' }])).body;
    assert.deepEqual([v.status, v.errors], [400, [{ field: 'name', message: 'required' }]]);
  });
});
