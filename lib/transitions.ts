import { ApiError } from './errors';

/**
 * A status machine as a table: each status with the statuses it may move to. Every group declares its machines here
 * (`statusMachine`, each named `<noun>Machine`) and moves a status through one of them: lib/transitions.ts is the
 * only place that answers a refused move, and the only place that throws `invalid_transition` (the layout test holds
 * both). A refusal is 409 `invalid_transition`: the message and `errors[0]` name the statuses the record may move to
 * from where it is, and the problem's `allowed` lists them (`[]` from a final status).
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

/** The one refusal: 409 `invalid_transition`, `errors[0]` at `path`, `allowed` the statuses reachable from `from`. */
function refusal<S extends string>(machine: StatusMachine<S>, from: S, said: string, path: string): ApiError {
  const message = `${said}; allowed next: ${nextStatuses(machine, from)}.`;
  return new ApiError('invalid_transition', message, {
    errors: [{ path, code: 'invalid_transition', message }],
    allowed: machine.moves[from],
  });
}

/**
 * 409 `invalid_transition` unless the machine lets `subject` (a reference or id) move from `from` to `to`; `path` is
 * the field of the body the move was asked by (`status` unless an action's route asked it); `because`, when given,
 * says why a move the record's own machine refuses is not open to it (e.g. who pays a charge).
 */
export function checkMove<S extends string>(
  machine: StatusMachine<S>,
  subject: string,
  from: S,
  to: S,
  path = 'status',
  because?: string,
): void {
  if (canMove(machine, from, to)) return;
  const why = because === undefined ? '' : ` (${because})`;
  throw refusal(machine, from, `The ${machine.noun} ${subject} is ${from} and cannot become ${to}${why}`, path);
}

/**
 * 409 `invalid_transition` unless a record in `from` takes `what`, something that is not a status move but only some
 * statuses take (`takenIn`): a lease's notice or renewal, a viewing's feedback. The refusal names the allowed next
 * statuses as a refused move does: what the record may still become.
 */
export function checkTakes<S extends string>(
  machine: StatusMachine<S>,
  subject: string,
  from: S,
  what: string,
  takenIn: readonly S[],
  path = 'status',
): void {
  if (takenIn.includes(from)) return;
  const when = takenIn.length > 1 ? `${takenIn.slice(0, -1).join(', ')} or ${takenIn.at(-1)}` : takenIn.join('');
  throw refusal(machine, from, `The ${machine.noun} ${subject} is ${from} and takes no ${what} (only when ${when})`, path);
}
