import { spawn } from 'node:child_process';

/**
 * The load generator's own heap (issue 39, 2026-12-01). glibc gives the free top of its heap back to the system once
 * more than its trim threshold is free there, and the next reads touch those pages anew: reading the 77 KB kept page
 * (two socket reads, up to 64 KB each) this process took 10.7 page faults a response in some runs and 0.02 in others
 * (13 µs each on that machine), 3,300–4,200 against 12,900–14,000 pages a second with the same code. So the driver
 * runs with glibc's trimming off: it starts itself again once with GLIBC_TUNABLES (glibc reads them at a process's
 * start only), and gives every process it starts the caller's environment back (the servers run as `npm start` runs).
 */
export async function withTunedHeap(): Promise<number | undefined> {
  const mark = 'BENCH_CALLER_GLIBC_TUNABLES';
  if (process.platform !== 'linux') return undefined;
  const caller = process.env[mark];
  if (caller !== undefined) {
    if (caller === '') delete process.env.GLIBC_TUNABLES;
    else process.env.GLIBC_TUNABLES = caller;
    delete process.env[mark];
    return undefined;
  }
  const tunables = 'glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=4194304';
  const env = {
    ...process.env,
    [mark]: process.env.GLIBC_TUNABLES ?? '',
    GLIBC_TUNABLES: [process.env.GLIBC_TUNABLES, tunables].filter(Boolean).join(':'),
  };
  const again = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  return new Promise((resolve) => {
    again.on('exit', (exitCode) => resolve(exitCode ?? 1));
    again.on('error', (error) => {
      console.error(error);
      resolve(1);
    });
  });
}
