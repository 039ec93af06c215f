// `npm start`: install what is missing, build, then serve (the server migrates and seeds at boot).
import { execSync, spawn } from 'node:child_process';
import { serviceNodeArgs, serviceEnv } from './service-process.mjs';

execSync('node scripts/ensure-install.mjs', { stdio: 'inherit' });
if (!process.env.SKIP_BUILD) {
  console.log('› building…');
  execSync('npx nx run-many -t build --outputStyle=static', {
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  });
}
console.log('› starting the service…');
// Its own process group: a Ctrl-C reaches the service once (forwarded here), never twice — a second
// signal during shutdown would end it before it has stopped its embedded database server.
const child = spawn(process.execPath, [...serviceNodeArgs(process.env), 'apps/api/dist/src/main.js'], {
  stdio: 'inherit',
  detached: true,
  env: serviceEnv(process.env),
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(sig, () => child.kill(sig === 'SIGHUP' ? 'SIGTERM' : sig));
child.on('exit', (code) => process.exit(code ?? 0));
