// The list page: GET /api/v1/listings, filtered by type, a page at a time.
import { api, formatPrice, h, href, lang, param, setUpPage, showError, t } from './app.js';

setUpPage();
const list = document.getElementById('listings');
const status = document.getElementById('list-status');
const more = document.getElementById('more');
const type = document.getElementById('type');
type.value = param('type') ?? '';

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
    facts.length ? h('p', {}, facts.join(' · ')) : null,
  );
}

async function load() {
  const query = new URLSearchParams({ page_size: '12' });
  if (type.value) query.set('type', type.value);
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

type.addEventListener('change', () => {
  // The filter is part of the address, so it can be shared and the back button works.
  location.search = new URLSearchParams({
    ...(type.value ? { type: type.value } : {}),
    ...(lang === 'ar' ? { lang } : {}),
  }).toString();
});
more.addEventListener('click', load);
load();
