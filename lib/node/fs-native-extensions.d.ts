// The part of fs-native-extensions (no types of its own) that lib/node/data-lock.ts uses.
declare module 'fs-native-extensions' {
  /** An exclusive (or, with `shared`, a shared) lock on the whole file; false when another holder has it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
