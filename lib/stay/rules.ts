import { addDays, daysBetween, todayIn, weekdayOf, zonedInstant } from '../dates';
import { ApiError, type FieldError, type ProblemCode } from '../errors';
import type { Range } from '../calendar';
import type { BookableHome } from './homes';
import { ruleOn, stayLimits } from './rates';

export type Stay = { checkIn: string; checkOut: string; guests: number };

const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

type StayProblem = FieldError & { code: ProblemCode };

/**
 * Every rule of the home a stay breaks, in a fixed order; the quote and the booking request apply the same
 * rules through `assertStayAllowed`. `taken` are the nights already taken around the stay.
 */
export function stayProblems(
  home: BookableHome,
  stay: Stay,
  timeZone: string,
  now: Date,
  taken: readonly Range[],
): StayProblem[] {
  const { terms } = home;
  const problems: StayProblem[] = [];
  const add = (code: ProblemCode, path: string, message: string) => problems.push({ code, path, message });
  const nights = daysBetween(stay.checkIn, stay.checkOut);
  if (home.maxGuests !== null && stay.guests > home.maxGuests) {
    add('guests', 'guests', `This home takes at most ${home.maxGuests} guests.`);
  }
  // The arrival day's own minimum and maximum stay over the terms' (issue 37, lib/stay/rates.ts).
  const limits = stayLimits(home.rates, stay.checkIn, terms);
  const who = (own: boolean) => (own ? `Stays arriving on ${stay.checkIn} take` : 'This home takes stays of');
  if (nights < limits.min)
    add('min_nights', 'check_out', `${who(limits.min !== terms.min_nights)} at least ${limits.min} nights.`);
  if (nights > limits.max)
    add('max_nights', 'check_out', `${who(limits.max !== terms.max_nights)} at most ${limits.max} nights.`);
  const arrivalDay = weekdayOf(stay.checkIn);
  if (terms.closed_arrival_days.includes(arrivalDay)) {
    add('arrival_day', 'check_in', `Stays cannot start on a ${weekdays[arrivalDay]}.`);
  } else if (ruleOn(home.rates, stay.checkIn)?.closed_to_arrival) {
    add('arrival_day', 'check_in', `Stays cannot start on ${stay.checkIn}: it is closed to arrival.`);
  }
  if (ruleOn(home.rates, stay.checkOut)?.closed_to_departure) {
    add('departure_day', 'check_out', `Stays cannot end on ${stay.checkOut}: it is closed to departure.`);
  }
  const arrival = zonedInstant(stay.checkIn, terms.check_in_time, timeZone);
  if (arrival.getTime() - now.getTime() < terms.notice_hours * 3_600_000) {
    add('notice', 'check_in', `A stay must start at least ${terms.notice_hours} hours from now.`);
  }
  if (stay.checkIn > addDays(todayIn(timeZone, now), terms.advance_days)) {
    add('advance', 'check_in', `A stay may start at most ${terms.advance_days} days ahead.`);
  }
  if (terms.available_from !== null && stay.checkIn < terms.available_from) {
    add('unavailable', 'check_in', `The home takes guests from ${terms.available_from}.`);
  } else if (terms.available_to !== null && stay.checkOut > terms.available_to) {
    add('unavailable', 'check_out', `The home takes guests until ${terms.available_to}.`);
  } else if (taken.some((r) => r.start < stay.checkOut && stay.checkIn < r.end)) {
    add('unavailable', 'check_in', 'Some of these nights are already taken.');
  }
  return problems;
}

/**
 * Refuses a stay the home cannot take: 400 with the first rule's code, and every broken rule in `errors`. `waived`: rules
 * of the arrival a kept arrival already met (an integration's change of a booking's guests or check-out, issue 37).
 */
export function assertStayAllowed(
  home: BookableHome,
  stay: Stay,
  timeZone: string,
  now: Date,
  taken: readonly Range[],
  waived: readonly ProblemCode[] = [],
): void {
  if (stay.checkOut <= stay.checkIn) {
    throw new ApiError('invalid_request', 'check_out must be after check_in.', {
      errors: [{ path: 'check_out', code: 'too_small', message: 'check_out must be after check_in.' }],
    });
  }
  const problems = stayProblems(home, stay, timeZone, now, taken).filter((problem) => !waived.includes(problem.code));
  const first = problems[0];
  if (first) throw new ApiError(first.code, first.message, { errors: problems });
}
