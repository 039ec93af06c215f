// What a bench started, stopped at the end whatever happens (also on Ctrl-C): `cleanups.push(fn)`, then
// `await cleanup()` in a finally.
export const cleanups = [];

export async function cleanup() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (e) {
      console.error('cleanup:', e.message);
    }
  }
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping the bench…`);
    cleanup().finally(() => process.exit(130));
  });
}
