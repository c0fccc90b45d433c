// Start-up time of the Node server: runs the command given (e.g. `npm start`) in its own process group, prints
// how long it took to print its "Property API on" line, then stops the group (SIGTERM) and exits once it has.
// Plain JavaScript, run with `node`, so the measurement adds no compiler of its own. See docs/performance.md.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node bench/until-listening.mjs COMMAND [ARG ...]');
  process.exit(2);
}
const started = performance.now();
const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
let listening = false;
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  output += chunk;
  if (!listening && output.includes('Property API on')) {
    listening = true;
    console.log(`listening after ${(performance.now() - started).toFixed(0)} ms`);
    process.kill(-child.pid, 'SIGTERM');
  }
});
child.on('exit', () => process.exit(listening ? 0 : 1));
