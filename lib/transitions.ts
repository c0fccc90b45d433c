import { ApiError } from './errors';

/**
 * A status machine as a table: each status with the statuses it may move to. Every group moves a status through one
 * of these (lib/transitions.ts is the only place that says how a refused move is answered): 409
 * `invalid_transition`, the message and `errors[0]` naming the statuses the record may move to from where it is.
 */
export type StatusMachine<S extends string> = {
  /** How the error names the record: `The <noun> <subject> is <from>…`. */
  readonly noun: string;
  readonly moves: Readonly<Record<S, readonly S[]>>;
};

/** Declares a status machine (typed by its statuses, so a table that forgets one does not compile). */
export function statusMachine<S extends string>(noun: string, moves: Record<S, readonly S[]>): StatusMachine<S> {
  return { noun, moves };
}

/** Whether the machine lets a record in `from` move to `to` (staying where it is is not a move). */
export function canMove<S extends string>(machine: StatusMachine<S>, from: S, to: S): boolean {
  return machine.moves[from].includes(to);
}

/** The statuses a record in `from` may move to, as the error says them (`none (final)` from a final status). */
export function nextStatuses<S extends string>(machine: StatusMachine<S>, from: S): string {
  const allowed = machine.moves[from];
  return allowed.length > 0 ? allowed.join(', ') : 'none (final)';
}

/**
 * 409 `invalid_transition` unless the machine lets `subject` (a reference or id) move from `from` to `to`; `path` is
 * the field of the body the move was asked by (`status` unless an action's route asked it).
 */
export function checkMove<S extends string>(machine: StatusMachine<S>, subject: string, from: S, to: S, path = 'status'): void {
  if (canMove(machine, from, to)) return;
  const message = `The ${machine.noun} ${subject} is ${from} and cannot become ${to}; allowed next: ${nextStatuses(machine, from)}.`;
  throw new ApiError('invalid_transition', message, { errors: [{ path, code: 'invalid_transition', message }] });
}
