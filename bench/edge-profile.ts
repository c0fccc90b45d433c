import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import WebSocket from 'ws';

/**
 * A V8 CPU profile of one Worker in workerd (the edge bench's `EDGE_PROFILE`): through workerd's inspector (Miniflare's
 * `inspectorPort`), the Chrome DevTools protocol's Profiler records while `run` sends the route's requests. Answers the
 * functions with the most self time (what the route's CPU is spent on) and writes the whole profile, which Chrome's
 * DevTools or speedscope open.
 */
type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
export type Hot = { function: string; where: string; self_ms: number; share: number };

export async function profileWorker(
  inspectorPort: number,
  worker: string,
  file: string,
  run: () => Promise<void>,
): Promise<Hot[]> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Array<{
    title: string;
    id: string;
    webSocketDebuggerUrl?: string;
  }>;
  const target = targets.find((t) => t.title.endsWith(`:${worker}`) || t.id.endsWith(`:${worker}`));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.title).join(', ')}`);
  const url = target.webSocketDebuggerUrl ?? `ws://127.0.0.1:${inspectorPort}/${target.id}`;
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: 100 });
    await call('Profiler.start');
    await run();
    const { profile } = (await call('Profiler.stop')) as { profile: Profile };
    await writeFile(file, JSON.stringify(profile));
    return hottest(profile);
  } finally {
    socket.close();
  }
}

/** Self time per function (summed over the profile's nodes of the same function and place), most first. */
function hottest(profile: Profile, count = 20): Hot[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, { function: string; where: string; micros: number }>();
  let total = 0;
  profile.samples.forEach((nodeId, i) => {
    const node = byNode.get(nodeId);
    const micros = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') return;
    total += micros;
    const where = `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    const key = `${functionName}@${where}`;
    const entry = self.get(key) ?? { function: functionName || '(anonymous)', where, micros: 0 };
    entry.micros += micros;
    self.set(key, entry);
  });
  return [...self.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, count)
    .map((e) => ({
      function: e.function,
      where: e.where,
      self_ms: Math.round(e.micros / 10) / 100,
      share: total === 0 ? 0 : Math.round((e.micros / total) * 1000) / 10,
    }));
}

/** The workerd process Miniflare started: this process's child whose command is workerd. */
export function workerdPid(): number {
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (Number(fields[1]) === process.pid && comm.startsWith('workerd')) return Number(pid);
    } catch {
      // The process ended while the list was read.
    }
  }
  throw new Error('no workerd child process found (the edge bench reads /proc: Linux only)');
}

/** User + system CPU time of a process, in milliseconds (the kernel counts in clock ticks, 100 a second here). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5) (utime, stime) are the 12th and 13th after the command.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
