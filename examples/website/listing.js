// One listing: its content and JSON-LD, the enquiry form, and for holiday homes availability, a quote and a
// booking request. Every call goes from this page straight to the API; the forms carry the publishable key.
import {
  ApiProblem,
  api,
  config,
  filledFields,
  formatDate,
  formatInstant,
  formatMoney,
  formatPrice,
  h,
  href,
  lang,
  newIdempotencyKey,
  param,
  setUpPage,
  showError,
  showSuccess,
  t,
  translate,
} from './app.js';
import { spamCheck } from './spam-check.js';

setUpPage();
for (const link of document.querySelectorAll('[data-back]')) link.href = href('index.html');
const status = document.getElementById('listing-status');
const slug = param('slug');

/** Copies the shared contact fields into a form, with ids of its own, and mounts its spam check. */
function contactFields(form, prefix) {
  const fields = document.getElementById('contact-fields').content.cloneNode(true);
  for (const el of fields.querySelectorAll('[id]')) el.id = `${prefix}-${el.id}`;
  for (const el of fields.querySelectorAll('label[for]')) el.htmlFor = `${prefix}-${el.htmlFor}`;
  for (const el of fields.querySelectorAll('[aria-describedby]')) {
    el.setAttribute('aria-describedby', `${prefix}-${el.getAttribute('aria-describedby')}`);
  }
  translate(fields);
  fields.querySelector('[data-privacy]').href = config.privacyUrl;
  form.querySelector('[data-contact-fields]').replaceWith(fields);
  return spamCheck(form.querySelector('[data-challenge]'), prefix);
}

/** What both forms send about the person: contact fields, consent, and the hidden field as it is. */
function personOf(form) {
  const fields = filledFields(form, ['name', 'email', 'phone', 'message']);
  if (!fields.email && !fields.phone) throw new Error(t.needContact);
  return {
    ...fields,
    language: lang,
    consent: form.elements.consent.checked,
    consent_version: config.consentVersion,
    website: form.elements.website.value,
  };
}

/**
 * Posts a form with the publishable key, its spam-check token and a new Idempotency-Key; shows the API's problem
 * when refused.
 */
function handleForm(form, outcome, check, { path, body, done }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      // One key per submission: api() may send this very body again, and the API books it only once.
      const answer = await api('POST', path, {
        idempotencyKey: newIdempotencyKey(),
        body: { ...body(), ...personOf(form), challenge: await check.token() },
      });
      done(answer);
    } catch (error) {
      showError(outcome, error);
    } finally {
      check.reset();
      button.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });
}

const reference = (value) => h('strong', { dataset: { reference: value } }, value);

function showContent(listing) {
  document.title = listing.title[lang];
  const description = listing.description[lang] ?? '';
  document.head.append(h('meta', { name: 'description', content: description.slice(0, 160) }));
  // The API's schema.org RealEstateListing, printed as it is for search engines.
  document.head.append(h('script', { type: 'application/ld+json' }, JSON.stringify(listing.structured_data[lang])));

  document.getElementById('title').textContent = listing.title[lang];
  document.getElementById('kind').textContent = t[listing.listing_type];
  document.getElementById('price').textContent = formatPrice(listing.price);
  const facts = [
    listing.bedrooms === null ? null : t.bedrooms(listing.bedrooms),
    listing.max_guests && listing.listing_type === 'holiday_home' ? t.guests(listing.max_guests) : null,
    [listing.area?.name[lang], listing.city?.name[lang]].filter(Boolean).join(lang === 'ar' ? '، ' : ', '),
  ].filter(Boolean);
  document.getElementById('facts').textContent = facts.join(' · ');
  const photo = listing.photos[0];
  if (photo) {
    const figure = document.getElementById('photo');
    const img = figure.querySelector('img');
    // A photo that cannot be loaded (offline, say) is left out rather than shown broken.
    img.addEventListener('error', () => {
      figure.hidden = true;
    });
    Object.assign(img, { src: photo.sizes.medium.url, alt: photo.alt[lang] });
    figure.querySelector('figcaption').textContent = photo.alt[lang];
    figure.hidden = false;
  }
  document.getElementById('description').replaceChildren(...description.split(/\n{2,}/).map((p) => h('p', {}, p)));
  document.getElementById('listing').hidden = false;
}

function enquiryForm(listing) {
  const form = document.getElementById('enquiry-form');
  const outcome = document.getElementById('enquiry-status');
  const check = contactFields(form, 'enquiry');
  handleForm(form, outcome, check, {
    path: '/api/v1/leads',
    body: () => ({ form: 'listing-enquiry', listing: listing.slug.en, page: location.href }),
    done: (answer) => {
      showSuccess(outcome, h('p', {}, t.sent, ' ', reference(answer.reference)));
      form.reset();
    },
  });
  document.getElementById('enquiry').hidden = false;
}

/** Availability: the home's rules and the taken ranges (start inclusive, end exclusive: the departure day). */
async function showAvailability(listing) {
  const box = document.getElementById('availability');
  const answer = await api('GET', '/api/v1/listings/{slug}/availability', { params: { path: { slug: listing.slug.en } } });
  const rules = [t.rules(answer)];
  if (answer.closed_arrival_days.length) {
    rules.push(`${t.closedArrival} ${answer.closed_arrival_days.map((d) => t.weekdays[d]).join(', ')}.`);
  }
  document.getElementById('rules').textContent = rules.join(' ');
  box.className = '';
  box.replaceChildren(
    answer.blocked.length ? h('p', {}, t.blockedIntro) : h('p', {}, t.blockedNone),
    answer.blocked.length
      ? h(
          'ul',
          { id: 'blocked' },
          ...answer.blocked.map((range) =>
            h('li', { dataset: { start: range.start, end: range.end } }, `${formatDate(range.start)} – ${formatDate(range.end)}`),
          ),
        )
      : null,
  );
  for (const id of ['check_in', 'check_out']) {
    const input = document.getElementById(id);
    input.min = answer.from;
    input.max = answer.to;
  }
}

function quoteTable(quote) {
  const money = (amount) => formatMoney(amount, quote.currency);
  const row = (label, amount, cls) =>
    h('tr', { class: cls }, h('th', { scope: 'row', colspan: 2 }, label), h('td', {}, money(amount)));
  return h(
    'table',
    { class: 'quote' },
    h('caption', {}, `${t.quoteTitle}: ${formatDate(quote.check_in)} – ${formatDate(quote.check_out)}`),
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, t.night), h('th', { scope: 'col' }, t.rate), h('th', { scope: 'col' }, t.price)),
    ),
    h(
      'tbody',
      {},
      ...quote.nights.map((n) =>
        h('tr', {}, h('td', {}, formatDate(n.date)), h('td', {}, t.rates[n.rate] ?? n.rate), h('td', {}, money(n.price))),
      ),
    ),
    h(
      'tfoot',
      {},
      row(t.subtotal, quote.subtotal),
      ...quote.fees.map((f) => row(t.fee[f.code] ?? f.code, f.amount)),
      row(t.total, quote.total, 'total'),
      row(t.deposit, quote.deposit),
    ),
  );
}

function stayForms(listing) {
  const quoteForm = document.getElementById('quote-form');
  const quoteStatus = document.getElementById('quote-status');
  const quoteBox = document.getElementById('quote');
  const bookingForm = document.getElementById('booking-form');
  const bookingStatus = document.getElementById('booking-status');
  const check = contactFields(bookingForm, 'booking');
  // A booking needs the guest's name; an enquiry does not.
  bookingForm.elements.name.required = true;
  // The booking asks for the dates and guests of the price on screen; changing them asks for a new price.
  let chosen = null;
  quoteForm.addEventListener('input', () => {
    chosen = null;
    quoteBox.replaceChildren();
    bookingForm.hidden = true;
  });
  quoteForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(quoteForm);
    const query = { check_in: data.get('check_in'), check_out: data.get('check_out'), guests: data.get('guests') };
    try {
      const quote = await api('GET', '/api/v1/listings/{slug}/quote', { params: { path: { slug: listing.slug.en }, query } });
      quoteStatus.hidden = true;
      quoteBox.replaceChildren(quoteTable(quote));
      chosen = { check_in: quote.check_in, check_out: quote.check_out, guests: quote.guests };
      bookingStatus.hidden = true;
      bookingForm.hidden = false;
    } catch (error) {
      quoteBox.replaceChildren();
      bookingForm.hidden = true;
      showError(quoteStatus, error);
    }
  });
  handleForm(bookingForm, bookingStatus, check, {
    path: '/api/v1/bookings',
    body: () => ({ listing: listing.slug.en, ...chosen }),
    done: (booking) => {
      const until = formatInstant(booking.hold_expires_at);
      showSuccess(
        bookingStatus,
        h('p', {}, t.booked, ' ', reference(booking.reference)),
        h('p', {}, `${t.holdUntil}: ${until}`),
        h('p', {}, h('a', { href: booking.stay_url, dataset: { stayLink: '' } }, t.stayLink)),
      );
      bookingForm.reset();
      showAvailability(listing).catch(() => {});
    },
  });
}

async function main() {
  if (!slug) {
    status.textContent = t.none;
    return;
  }
  let listing;
  try {
    listing = await api('GET', '/api/v1/listings/{slug}', { params: { path: { slug } } });
  } catch (error) {
    showError(status, error);
    return;
  }
  if (listing.status === 'withdrawn') {
    document.head.append(h('meta', { name: 'robots', content: 'noindex' }));
    status.textContent = t.withdrawn;
    return;
  }
  status.hidden = true;
  showContent(listing);
  enquiryForm(listing);
  if (listing.listing_type !== 'holiday_home') return;
  try {
    await showAvailability(listing);
  } catch (error) {
    // 404: the company takes no bookings online; the enquiry form is enough.
    if (error instanceof ApiProblem && error.status === 404) return;
    document.getElementById('stay').hidden = false;
    showError(document.getElementById('availability'), error);
    return;
  }
  stayForms(listing);
  document.getElementById('stay').hidden = false;
}

main();
