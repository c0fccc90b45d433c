import type { Context } from 'hono';
import { html } from 'hono/html';
import { sql } from 'kysely';
import { keyringOf } from '../../lib/crypto-jwe';
import { todayIn } from '../../lib/dates';
import type { AppEnv } from '../../lib/env';
import { ApiError } from '../../lib/errors';
import { pageHeaders, sentFromOwnPage } from '../../lib/pages';
import { readGuestForm } from '../../schema/stay/guests';
import { registrationSection } from './guest-form';
import { guestTexts } from './guest-texts';
import { registeredGuestsSql, registerGuests, registrationOpen, registrationRequired } from './guests';
import { page, stayAction } from './page';
import { stayLanguage, stayTexts } from './page-texts';

/**
 * The stay page's guest registration form (`POST /stay/{token}/guests`, issue 37): the guests of the booking, checked
 * (schema/stay/guests.ts readGuestForm), sealed and written with `booking.guests_registered` (guests.ts registerGuests),
 * then 303 back to the stay page, which says how many are registered. A refused form is the page's form again, 400,
 * with what was sent and each problem at its field; nothing is written then. Only the token's holder reaches the
 * booking, on its company's host; a form from another site is refused (403), as the page's other actions are.
 */
export function registerStayGuests() {
  return async function registerGuestsPage(c: Context<AppEnv, '/stay/:token/guests'>): Promise<Response> {
    const { db, config } = c.var.services;
    const found = await stayAction(c, c.req.param('token'), ({ at, where }) =>
      db
        .selectFrom('bookings as b')
        .select([
          'b.id',
          'b.reference',
          'b.listing_id',
          'b.status',
          'b.guests',
          'b.check_out',
          'b.language',
          sql<boolean>`(b.status = 'held' and b.hold_expires_at <= ${at.toISOString()}::timestamptz)
          or (b.status = 'confirmed' and b.payment_due_at <= ${at.toISOString()}::timestamptz)`.as('lapsed'),
          registeredGuestsSql.as('registered'),
        ])
        .where(where)
        .executeTakeFirst(),
    );
    if (found instanceof Response) return found;
    const { token, company, at, booking } = found;
    const language = stayLanguage(booking.language);
    const t = guestTexts[language];
    const today = todayIn(company.time_zone, at);
    const refuse = (code: string, message: string, status: 403 | 409 | 503) =>
      c.html(
        page(
          language,
          t.title,
          html`<main><h1>${t.title}</h1><p data-problem="${code}">${message}</p><p><a href="/stay/${token}">${stayTexts[language].back}</a></p></main>`,
        ),
        status,
        pageHeaders,
      );
    if (!sentFromOwnPage(c)) return refuse('origin_not_allowed', 'The form was sent from another site.', 403);
    const closed = () => refuse('registration_closed', t.closed, 409);
    const open = registrationOpen(
      { status: booking.status, check_out: booking.check_out, lapsed: booking.lapsed === true },
      today,
    );
    if (!registrationRequired(company.settings) || !open) {
      return closed();
    }
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      form = {};
    }
    const { guests, problems } = readGuestForm(form, { guests: booking.guests, today });
    if (problems.length > 0) {
      const sent = Object.fromEntries(
        Object.entries(form).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].length <= 200),
      );
      const section = registrationSection(language, token, {
        expected: booking.guests,
        registered: booking.registered,
        open: true,
        sent,
        problems,
      });
      return c.html(page(language, t.title, html`<main>${section}</main>`), 400, pageHeaders);
    }
    try {
      const written = await registerGuests(db, { companyId: company.id, booking, guests, keyring: keyringOf(config) }, today, at);
      if (!written) return closed();
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'encryption_unavailable') throw error;
      return refuse(error.code, error.message, 503);
    }
    return c.body(null, 303, { ...pageHeaders, Location: `/stay/${token}#registration` });
  };
}
