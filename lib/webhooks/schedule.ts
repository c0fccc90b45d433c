/**
 * The retry schedule: an attempt at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h
 * (10 attempts over about three days and three hours). Each wait is lengthened by a jitter of 0–10 % that is
 * derived from the delivery id and the attempt, so deliveries failing together spread out, and the QStash
 * schedule (baked into each message) and the persisted next_attempt_at agree.
 */
const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

export const retrySchedule = [
  0,
  5 * second,
  5 * minute,
  30 * minute,
  2 * hour,
  5 * hour,
  10 * hour,
  14 * hour,
  20 * hour,
  24 * hour,
];
export const maxAttempts = retrySchedule.length;

/** A stable fraction in [0, 0.1) for (delivery, attempt): FNV-1a, not a secret. */
export function jitterFraction(deliveryId: string, attempt: number): number {
  let hash = 0x811c9dc5;
  for (const char of `${deliveryId}:${attempt}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash / 2 ** 32) * 0.1;
}

/** Milliseconds to wait before attempt `attempt` (1-based) after the previous one failed. */
export function delayBefore(deliveryId: string, attempt: number): number {
  const base = retrySchedule[attempt - 1] ?? 0;
  return Math.round(base * (1 + jitterFraction(deliveryId, attempt)));
}

/**
 * QStash's Upstash-Retry-Delay for a message whose first attempt is attempt `attemptsMade + 1`: a sum of
 * `wait × max(0, 1 − |retried − k|)` terms, which is the k-th wait exactly when QStash has retried k times.
 */
export function qstashRetryDelay(deliveryId: string, attemptsMade: number): string | undefined {
  const terms: string[] = [];
  for (let attempt = attemptsMade + 2, k = 0; attempt <= maxAttempts; attempt++, k++) {
    terms.push(`${delayBefore(deliveryId, attempt)} * max(0, 1 - abs(retried - ${k}))`);
  }
  return terms.length > 0 ? terms.join(' + ') : undefined;
}

/** How many times QStash should retry a message whose first attempt is attempt `attemptsMade + 1`. */
export function qstashRetries(attemptsMade: number, cap: number): number {
  return Math.max(0, Math.min(cap, maxAttempts - attemptsMade - 1));
}
