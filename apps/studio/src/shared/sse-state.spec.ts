import assert from 'node:assert/strict';
import {
  BACKOFF_MAX_MS,
  MAX_RECONNECT_ATTEMPTS,
  backoffDelay,
  initialSseState,
  parseEventId,
  reconnectUrl,
  reduceSse,
  type SseAction,
  type SseState,
  type StreamEvent,
} from './sse-state';

function run(actions: SseAction[], from: SseState = initialSseState) {
  let state = from;
  const events: StreamEvent[] = [];
  for (const a of actions) {
    const step = reduceSse(state, a);
    state = step.state;
    if (step.event) events.push(step.event);
  }
  return { state, events };
}

const msg = (id: string, event: string, data: unknown = {}): SseAction => ({
  type: 'message',
  message: { id, event, data: JSON.stringify(data) },
});

describe('parseEventId', () => {
  it('splits run id and seq', () => {
    assert.deepEqual(parseEventId('42:7'), { runId: '42', seq: 7 });
    assert.deepEqual(parseEventId('a:b:12'), { runId: 'a:b', seq: 12 });
  });
  it('rejects malformed ids', () => {
    for (const id of [undefined, null, '', '42', ':3', '42:', '42:x', '42:-1']) {
      assert.equal(parseEventId(id), null, String(id));
    }
  });
});

describe('reduceSse', () => {
  it('delivers events in order with parsed data and closes on close', () => {
    const { state, events } = run([
      { type: 'connect' },
      { type: 'opened' },
      msg('9:1', 'status', { run_id: 9, state: 'running' }),
      msg('9:2', 'content', { delta: 'Hel' }),
      msg('9:3', 'content', { delta: 'lo' }),
      msg('9:4', 'done', { run_id: 9, reply: 'Hello' }),
      msg('9:5', 'close'),
    ]);
    assert.deepEqual(
      events.map((e) => e.name),
      ['status', 'content', 'content', 'done', 'close'],
    );
    assert.deepEqual(events[1].data, { delta: 'Hel' });
    assert.equal(state.status, 'closed');
    assert.equal(state.closed, true);
    assert.equal(state.lastEventId, '9:5');
    assert.equal(state.received, 5);
  });

  it('plans a reconnect from the last id when the connection drops before close', () => {
    const { state } = run([
      { type: 'connect' },
      { type: 'opened' },
      msg('9:1', 'status'),
      msg('9:2', 'content', { delta: 'a' }),
      { type: 'dropped', reason: 'network' },
    ]);
    assert.equal(state.status, 'reconnecting');
    assert.equal(state.lastEventId, '9:2');
    assert.equal(state.attempt, 1);
    assert.equal(state.retryDelayMs, backoffDelay(1));
    assert.equal(reconnectUrl(state.lastEventId), '/agent/stream?last_event_id=9%3A2');
  });

  it('drops replayed duplicates after a reconnect: nothing lost, nothing twice', () => {
    const first = run([
      { type: 'connect' },
      { type: 'opened' },
      msg('9:1', 'status'),
      msg('9:2', 'content', { delta: 'a' }),
      msg('9:3', 'content', { delta: 'b' }),
      { type: 'dropped' },
    ]);
    // The server replays after seq 3, but a proxy may also resend some earlier events.
    const second = run(
      [
        { type: 'opened' },
        msg('9:2', 'content', { delta: 'a' }),
        msg('9:3', 'content', { delta: 'b' }),
        msg('9:4', 'content', { delta: 'c' }),
        msg('9:4', 'content', { delta: 'c' }),
        msg('9:5', 'done'),
        msg('9:6', 'close'),
      ],
      first.state,
    );
    const all = [...first.events, ...second.events];
    assert.deepEqual(
      all.map((e) => e.seq),
      [1, 2, 3, 4, 5, 6],
    );
    const text = all
      .filter((e) => e.name === 'content')
      .map((e) => (e.data as { delta: string }).delta)
      .join('');
    assert.equal(text, 'abc');
    assert.equal(second.state.duplicates, 3);
    assert.equal(second.state.status, 'closed');
  });

  it('resets the attempt counter once a new event arrives', () => {
    const { state } = run([
      { type: 'connect' },
      msg('9:1', 'status'),
      { type: 'dropped' },
      { type: 'http_error', status: 503, message: 'unavailable' },
      { type: 'opened' },
      msg('9:2', 'content', { delta: 'x' }),
      { type: 'dropped' },
    ]);
    assert.equal(state.status, 'reconnecting');
    assert.equal(state.attempt, 1);
  });

  it('gives up after too many attempts without progress', () => {
    const actions: SseAction[] = [{ type: 'connect' }, msg('9:1', 'status')];
    for (let i = 0; i < MAX_RECONNECT_ATTEMPTS; i++) actions.push({ type: 'dropped' });
    const almost = run(actions);
    assert.equal(almost.state.status, 'reconnecting');
    const { state } = run([{ type: 'dropped' }], almost.state);
    assert.equal(state.status, 'failed');
    assert.match(state.error ?? '', /could not resume/);
  });

  it('does not retry when nothing identifies the run yet', () => {
    const { state } = run([{ type: 'connect' }, { type: 'dropped' }]);
    assert.equal(state.status, 'failed');
  });

  it('fails without retry on a client error, retries a server error once resumable', () => {
    const a = run([{ type: 'connect' }, { type: 'http_error', status: 409, message: 'At the last stage' }]);
    assert.equal(a.state.status, 'failed');
    assert.equal(a.state.error, 'At the last stage');
    assert.equal(a.state.httpStatus, 409);

    const b = run([
      { type: 'connect' },
      msg('9:1', 'status'),
      { type: 'http_error', status: 502, message: 'bad gateway' },
    ]);
    assert.equal(b.state.status, 'reconnecting');

    const c = run([{ type: 'connect' }, msg('9:1', 'status'), { type: 'http_error', status: 404, message: 'no run' }]);
    assert.equal(c.state.status, 'failed');
  });

  it('re-attaching to a known run is resumable before its first event, and keeps the problem code', () => {
    const a = run([{ type: 'connect', resumeFrom: 'r-1:0' }, { type: 'dropped' }]);
    assert.equal(a.state.status, 'reconnecting');
    assert.equal(a.state.lastEventId, 'r-1:0');
    const b = run([{ type: 'connect', resumeFrom: 'r-1:0' }, msg('r-1:1', 'status'), msg('r-1:2', 'content')]);
    assert.equal(b.events.length, 2);
    const c = run([
      { type: 'connect' },
      { type: 'http_error', status: 409, message: 'busy', code: 'turn_in_progress' },
    ]);
    assert.equal(c.state.errorCode, 'turn_in_progress');
  });

  it('ignores anything after close, and a drop after close is a normal end', () => {
    const { state, events } = run([
      { type: 'connect' },
      msg('9:1', 'close'),
      msg('9:2', 'content', { delta: 'late' }),
      { type: 'dropped' },
    ]);
    assert.equal(events.length, 1);
    assert.equal(state.status, 'closed');
  });

  it('stops delivering after abort', () => {
    const { state, events } = run([
      { type: 'connect' },
      msg('9:1', 'status'),
      { type: 'abort' },
      msg('9:2', 'content'),
      { type: 'dropped' },
    ]);
    assert.equal(events.length, 1);
    assert.equal(state.status, 'aborted');
  });

  it('keeps non-JSON data as text and still delivers id-less events', () => {
    const { events } = run([{ type: 'connect' }, { type: 'message', message: { event: 'status', data: 'plain' } }]);
    assert.equal(events[0].data, 'plain');
    assert.equal(events[0].seq, null);
  });
});

describe('backoffDelay', () => {
  it('doubles and caps', () => {
    assert.equal(backoffDelay(1), 500);
    assert.equal(backoffDelay(2), 1000);
    assert.equal(backoffDelay(3), 2000);
    assert.equal(backoffDelay(20), BACKOFF_MAX_MS);
  });
});
