import { createRouter } from '../../lib/app';
import { tokenPageRoute } from '../../lib/pages';
import type { Handler } from '../../lib/routes';
import { stayPage } from './page';

/** The guest's stay page: HTML at /stay/{token}, the booking request's `stay_url` (lib/pages.ts; page.ts answers). */
const stayPageRoute = tokenPageRoute({
  path: '/stay/{token}',
  operationId: 'getStayPage',
  tags: ['Bookings'],
  summary: 'The guest’s stay page (HTML), at the `stay_url` a booking request answered with',
  description:
    'The booking’s status, its quote and what is due by when, in the guest’s language (English or Arabic, right to left); no script.',
});

const showStayPage: Handler<typeof stayPageRoute> = stayPage();

export const stayPages = () => createRouter().openapi(stayPageRoute, showStayPage);
