import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { date } from '../common/homes';
import { leadFormFields } from '../common/forms';
import { requireEmailOrPhone } from '../common/people';
import { syncQuery } from '../common/api';
import { bookingStatuses } from './db';
import { AdminBookingSchema } from './bookings';

/**
 * Reservations for integrations (issue 37; docs/api-reference.md, "Reservations for integrations"): a channel manager's
 * or PMS's server key reads bookings (`read:bookings`), moves and changes them and records the bookings it took
 * elsewhere (`write:bookings`).
 */

export const ReservationParams = z.object({
  reference: text()
    .min(1)
    .max(40)
    .openapi({ param: { name: 'reference', in: 'path' }, example: 'B-7K3M9Q2XAB' }),
});

export const ReservationsQuery = z
  .strictObject({
    ...syncQuery,
    status: z.enum(bookingStatuses).optional(),
    listing: text()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'Only the bookings of this home (its slug, any language).' }),
    check_in_from: date.optional().openapi({ description: 'Only stays arriving on or after this day.' }),
    check_in_to: date.optional().openapi({ description: 'Only stays arriving before this day.' }),
  })
  .superRefine((query, ctx) => {
    if (query.check_in_from && query.check_in_to && query.check_in_to <= query.check_in_from) {
      ctx.addIssue({ code: 'custom', path: ['check_in_to'], message: 'check_in_to must be after check_in_from.' });
    }
  });

/** A channel, in lower case: `airbnb`, `booking.com`, `vrbo`, `direct`… */
const channel = text()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'Lower-case letters, digits, "_", "." and "-", up to 64 characters (e.g. airbnb).')
  .openapi({ example: 'airbnb' });

const channelFields = {
  channel,
  channel_reference: text().min(1).max(200).openapi({
    description: 'The channel’s own id of the booking: the same id again answers the same booking.',
    example: 'HMABCD1234',
  }),
  listing: text().min(1).max(200).openapi({ description: 'Slug (any language) of a published holiday home.' }),
  check_in: date,
  check_out: date,
  guests: z.number().int().min(1).max(1000),
  name: text().trim().min(1).max(200),
  email: leadFormFields.email,
  phone: leadFormFields.phone,
  message: leadFormFields.message,
  language: leadFormFields.language,
};

/** A booking taken on a channel: kept as paid there, by the channel's own id (idempotent). */
export const ChannelBookingInput = z
  .strictObject(channelFields)
  .superRefine((input, ctx) => requireEmailOrPhone(input, ctx))
  .openapi('ChannelBookingInput');
export type ChannelBookingValue = z.infer<typeof ChannelBookingInput>;

/** A change of a booking's dates or guests: at least one field. */
export const ReservationChange = z
  .strictObject({ check_in: date.optional(), check_out: date.optional(), guests: z.number().int().min(1).max(1000).optional() })
  .superRefine((input, ctx) => {
    if (input.check_in === undefined && input.check_out === undefined && input.guests === undefined) {
      ctx.addIssue({ code: 'custom', path: ['check_in'], message: 'Send check_in, check_out or guests.' });
    }
  })
  .openapi('ReservationChange');
export type ReservationChangeValue = z.infer<typeof ReservationChange>;

export const ReservationSchema = AdminBookingSchema.extend({
  channel: z.string().nullable().openapi({ description: 'The channel a booking taken elsewhere came from; null for ours.' }),
  channel_reference: z.string().nullable().openapi({ description: 'The channel’s own id of it.' }),
}).openapi('Reservation');

export const ReservationListSchema = z
  .object({ results: z.array(ReservationSchema), next_cursor: z.string().nullable() })
  .openapi('ReservationList');
