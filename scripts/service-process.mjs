// How the service's Node process is started, shared by `npm start` and the benchmarks (so the figures in
// docs/performance.md are those of the service as users run it; the Dockerfile repeats the two values).
// Both trade a little garbage-collection work for memory an idle service keeps (docs/decisions/database.md,
// "Memory"): a 2 MiB young generation instead of V8's up-to-16 MiB semi-spaces, and at most two glibc
// malloc arenas instead of eight per core. A semi-space size in NODE_OPTIONS, or a MALLOC_ARENA_MAX, wins.

/** Node's flags for the service: none where `env.NODE_OPTIONS` already sizes the young generation. */
export function serviceNodeArgs(env) {
  return /--max-semi-space-size\b/.test(env.NODE_OPTIONS ?? '') ? [] : ['--max-semi-space-size=2'];
}

/** The environment of the service process: `env` with the memory defaults where it does not set them. */
export function serviceEnv(env) {
  return { MALLOC_ARENA_MAX: '2', ...env };
}
