// `npm start`: install what is missing, build, then serve (the server migrates and seeds at boot).
import { execSync, spawn } from 'node:child_process';

execSync('node scripts/ensure-install.mjs', { stdio: 'inherit' });
if (!process.env.SKIP_BUILD) {
  console.log('› building…');
  execSync('npx nx run-many -t build --outputStyle=static', { stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
}
console.log('› starting the service…');
const child = spawn(process.execPath, ['apps/api/dist/src/main.js'], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
