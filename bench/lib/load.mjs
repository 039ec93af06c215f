// autocannon with raw per-response latencies (its histogram keeps whole milliseconds only).
import autocannon from 'autocannon';

/**
 * Runs autocannon and resolves {result, latencies (ms, 2xx only), statuses}.
 * `bodies` (optional): one body per connection, given out in order as autocannon sets up clients.
 */
export function cannon({ bodies, ...opts }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statuses = {};
    let nextBody = 0;
    const inst = autocannon(
      {
        timeout: 30,
        ...opts,
        ...(bodies ? { setupClient: (client) => client.setBody(bodies[nextBody++ % bodies.length]) } : {}),
      },
      (err, result) => (err ? reject(err) : resolve({ result, latencies, statuses })),
    );
    inst.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/** Errors of a run as one number: socket errors, timeouts and non-2xx answers. */
export function errorCount(result) {
  return (result.errors ?? 0) + (result.timeouts ?? 0) + (result.non2xx ?? 0);
}
