// The list page: GET /api/v1/listings, filtered by type, words (q) and free dates, a page at a time.
import { api, formatMoney, formatPrice, h, href, lang, param, setUpPage, showError, t } from './app.js';

setUpPage();
const list = document.getElementById('listings');
const status = document.getElementById('list-status');
const more = document.getElementById('more');
const form = document.getElementById('filter');
const type = document.getElementById('type');
/** The search's fields, as the address gives them (so a search can be shared and the back button works). */
const fields = ['type', 'q', 'check_in', 'check_out', 'guests'];
for (const name of fields) document.getElementById(name).value = param(name) ?? '';

let cursor = null;

function card(listing) {
  const photo = listing.photos[0];
  const facts = [
    listing.bedrooms === null ? null : t.bedrooms(listing.bedrooms),
    listing.listing_type === 'holiday_home' && listing.max_guests ? t.guests(listing.max_guests) : null,
    listing.area?.name[lang],
  ].filter(Boolean);
  return h(
    'li',
    { class: 'card', dataset: { slug: listing.slug.en, type: listing.listing_type } },
    photo
      ? h('img', {
          src: photo.sizes.small.url,
          alt: photo.alt[lang],
          width: 480,
          height: 320,
          loading: 'lazy',
          // A photo that cannot be loaded (offline, say) is left out rather than shown broken.
          onerror: (event) => event.target.remove(),
        })
      : null,
    h('h2', {}, h('a', { href: href('listing.html', { slug: listing.slug[lang] }) }, listing.title[lang])),
    h('p', { class: 'kind' }, t[listing.listing_type]),
    h('p', { class: 'price' }, formatPrice(listing.price)),
    // With dates, the API prices the stay (the same quote a booking request would get).
    listing.quote
      ? h(
          'p',
          { class: 'stay-total', dataset: { total: listing.quote.total } },
          t.stayTotal(listing.quote.nights.length, formatMoney(listing.quote.total, listing.quote.currency)),
        )
      : null,
    facts.length ? h('p', {}, facts.join(' · ')) : null,
  );
}

async function load() {
  const query = new URLSearchParams({ page_size: '12' });
  for (const name of fields) {
    const value = param(name);
    if (value) query.set(name, value);
  }
  if (cursor) query.set('cursor', cursor);
  more.disabled = true;
  try {
    const page = await api('GET', '/api/v1/listings', { params: { query: Object.fromEntries(query) } });
    list.append(...page.results.map(card));
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    status.hidden = list.children.length > 0;
    status.textContent = list.children.length ? '' : t.none;
  } catch (error) {
    showError(status, error);
  } finally {
    more.disabled = false;
  }
}

/** The search is part of the address, so it can be shared and the back button works. */
function search(event) {
  event?.preventDefault();
  const query = new URLSearchParams();
  for (const name of fields) {
    const value = document.getElementById(name).value.trim();
    if (value) query.set(name, value);
  }
  if (lang === 'ar') query.set('lang', lang);
  location.search = query.toString();
}
type.addEventListener('change', search);
form.addEventListener('submit', search);
more.addEventListener('click', load);
load();
