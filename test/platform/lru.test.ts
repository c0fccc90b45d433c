import { describe, expect, it } from 'vitest';
import { LruMap } from '../../lib/lru';

const keys = (map: LruMap<string, string>, candidates: string[]) => candidates.filter((k) => map.get(k) !== undefined);

describe('LruMap (the in-memory caches of the catalogue and of availability)', () => {
  it('keeps at most `max` entries, forgetting the least recently used', () => {
    const map = new LruMap<string, string>({ max: 2 });
    map.set('a', '1');
    map.set('b', '2');
    expect(map.get('a')).toBe('1'); // a is now more recent than b
    map.set('c', '3');
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect(keys(map, ['a', 'c'])).toEqual(['a', 'c']);
  });

  it('bounds the total size, counting a replaced entry once', () => {
    const map = new LruMap<string, string>({ maxSize: 10, sizeOf: (value, key) => value.length + key.length });
    map.set('a', '1234'); // 5
    map.set('b', '1234'); // 10
    map.set('a', '12'); // replaces a: 3 + 5 = 8
    expect(keys(map, ['a', 'b'])).toEqual(['a', 'b']);
    map.set('c', '123'); // 4 more: 12 > 10, so the least recent (a, read first above) goes
    expect(keys(map, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('does not keep an entry heavier than maxSize, and drops what it replaces', () => {
    const map = new LruMap<string, string>({ maxSize: 4, sizeOf: (value) => value.length });
    map.set('a', '12');
    map.set('a', '12345');
    expect(map.get('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('deletes', () => {
    const map = new LruMap<string, string>({ max: 5 });
    map.set('a', '1');
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(map.get('a')).toBeUndefined();
  });
});
