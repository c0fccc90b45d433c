// What every page shares: settings, language, text, the API client and small DOM helpers.
import config from './config.js';
import { formatInstant as sharedInstant, formatMoney as sharedMoney } from './vendor/display.js';
import { createPropertyApiClient } from './vendor/property-api-client.js';

export { config };

const params = new URLSearchParams(location.search);
/** The page's language: ?lang=ar for Arabic (right to left), English otherwise. */
export const lang = params.get('lang') === 'ar' ? 'ar' : 'en';
export const param = (name) => params.get(name);

const text = {
  en: {
    site: 'Property listings',
    all: 'All',
    sale: 'For sale',
    lease: 'For rent',
    holiday_home: 'Holiday homes',
    filter: 'Show',
    search: 'Search',
    searchHint: 'Words, an area, a reference',
    freeDates: 'Holiday homes free on these dates',
    find: 'Find',
    stayTotal: (nights, amount) => `${nights} night${nights === 1 ? '' : 's'}: ${amount}`,
    more: 'Show more',
    loading: 'Loading…',
    none: 'No listings match.',
    back: 'All listings',
    bedrooms: (n) => (n === 0 ? 'Studio' : `${n} bedroom${n === 1 ? '' : 's'}`),
    guests: (n) => `up to ${n} guests`,
    priceOnRequest: 'Price on request',
    per: { night: 'a night', month: 'a month', year: 'a year', total: '' },
    withdrawn: 'This listing is no longer on the market.',
    other: 'العربية',
    enquiry: 'Ask about this home',
    name: 'Name',
    email: 'Email',
    phone: 'Phone',
    message: 'Message',
    consent: 'I agree to the privacy notice',
    privacy: 'Privacy notice',
    contactHint: 'Give an email address or a phone number (or both).',
    send: 'Send',
    sending: 'Sending…',
    sent: 'Thank you, we received your enquiry. Reference:',
    needContact: 'Please give an email address or a phone number.',
    availability: 'Availability',
    blockedNone: 'No dates are taken in the coming year.',
    blockedIntro: 'Taken (arrival day to departure day):',
    rules: (a) =>
      `Stays of ${a.min_nights} to ${a.max_nights} nights. Check-in from ${a.check_in_time}, check-out by ${a.check_out_time}.`,
    closedArrival: 'No arrivals on',
    checkIn: 'Arrival',
    checkOut: 'Departure',
    guestsLabel: 'Guests',
    quote: 'Get a price',
    quoteTitle: 'Your price',
    night: 'Night',
    rate: 'Rate',
    price: 'Price',
    subtotal: 'Subtotal',
    total: 'Total',
    deposit: 'Refundable deposit',
    rates: { base: 'Standard', weekend: 'Weekend', season: 'Season' },
    fee: { cleaning: 'Cleaning', tourism_fee: 'Tourism fee' },
    book: 'Request this stay',
    bookIntro: 'Nothing is charged now: the dates are held while we confirm, then you pay from your stay page.',
    booked: 'Your dates are held while we confirm. Booking reference:',
    holdUntil: 'Held until',
    stayLink: 'Open your stay page',
    network:
      'The request could not reach the booking system (no connection, or this site is not allowed to send forms to it). Nothing was sent.',
    spamCheck: 'Please complete the spam check first.',
    weekdays: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  },
  ar: {
    site: 'العقارات المعروضة',
    all: 'الكل',
    sale: 'للبيع',
    lease: 'للإيجار',
    holiday_home: 'بيوت العطلات',
    filter: 'عرض',
    search: 'بحث',
    searchHint: 'كلمات، منطقة، رقم مرجعي',
    freeDates: 'بيوت عطلات متاحة في هذه التواريخ',
    find: 'ابحث',
    stayTotal: (nights, amount) => `${nights} ليالٍ: ${amount}`,
    more: 'عرض المزيد',
    loading: 'جارٍ التحميل…',
    none: 'لا توجد عقارات مطابقة.',
    back: 'كل العقارات',
    bedrooms: (n) => (n === 0 ? 'استوديو' : `${n} غرف نوم`),
    guests: (n) => `حتى ${n} ضيوف`,
    priceOnRequest: 'السعر عند الطلب',
    per: { night: 'لليلة', month: 'شهريًا', year: 'سنويًا', total: '' },
    withdrawn: 'لم يعد هذا العقار معروضًا.',
    other: 'English',
    enquiry: 'استفسر عن هذا العقار',
    name: 'الاسم',
    email: 'البريد الإلكتروني',
    phone: 'الهاتف',
    message: 'الرسالة',
    consent: 'أوافق على إشعار الخصوصية',
    privacy: 'إشعار الخصوصية',
    contactHint: 'اذكر بريدًا إلكترونيًا أو رقم هاتف (أو كليهما).',
    send: 'إرسال',
    sending: 'جارٍ الإرسال…',
    sent: 'شكرًا لك، وصلنا استفسارك. الرقم المرجعي:',
    needContact: 'يرجى ذكر بريد إلكتروني أو رقم هاتف.',
    availability: 'التوفر',
    blockedNone: 'لا توجد تواريخ محجوزة خلال العام القادم.',
    blockedIntro: 'محجوز (من يوم الوصول إلى يوم المغادرة):',
    rules: (a) =>
      `الإقامة من ${a.min_nights} إلى ${a.max_nights} ليلة. تسجيل الوصول من ${a.check_in_time}، والمغادرة قبل ${a.check_out_time}.`,
    closedArrival: 'لا وصول في أيام',
    checkIn: 'الوصول',
    checkOut: 'المغادرة',
    guestsLabel: 'الضيوف',
    quote: 'احسب السعر',
    quoteTitle: 'السعر',
    night: 'الليلة',
    rate: 'التعرفة',
    price: 'السعر',
    subtotal: 'المجموع الفرعي',
    total: 'الإجمالي',
    deposit: 'تأمين مسترد',
    rates: { base: 'عادي', weekend: 'نهاية الأسبوع', season: 'موسم' },
    fee: { cleaning: 'التنظيف', tourism_fee: 'رسوم السياحة' },
    book: 'اطلب هذه الإقامة',
    bookIntro: 'لا يُخصم أي مبلغ الآن: نحجز التواريخ حتى نؤكدها، ثم تدفع من صفحة إقامتك.',
    booked: 'تم حجز تواريخك مؤقتًا حتى نؤكدها. رقم الحجز:',
    holdUntil: 'محجوز حتى',
    stayLink: 'افتح صفحة إقامتك',
    network: 'تعذر الوصول إلى نظام الحجز (لا يوجد اتصال، أو لا يُسمح لهذا الموقع بإرسال النماذج إليه). لم يُرسل شيء.',
    spamCheck: 'يرجى إكمال التحقق من الرسائل المزعجة أولًا.',
    weekdays: ['الاثنين', 'الثلاثاء', 'الأربعاء', 'الخميس', 'الجمعة', 'السبت', 'الأحد'],
  },
};

/** This page's text. */
export const t = text[lang];

/** Sets the document's language and direction, and the link to the other language. */
export function setUpPage() {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
  const switcher = document.querySelector('[data-other-language]');
  if (switcher) {
    const other = new URL(location.href);
    other.searchParams.set('lang', lang === 'ar' ? 'en' : 'ar');
    switcher.href = other.pathname + other.search;
    switcher.textContent = t.other;
    switcher.lang = lang === 'ar' ? 'en' : 'ar';
  }
  translate(document);
}

/** Puts this language's text into every `[data-text]` element under `root`. */
export function translate(root) {
  for (const el of root.querySelectorAll('[data-text]')) el.textContent = t[el.dataset.text];
  for (const el of root.querySelectorAll('[data-placeholder]')) el.placeholder = t[el.dataset.placeholder];
}

/** A link to another page of this site, keeping the language. */
export function href(page, query = {}) {
  const search = new URLSearchParams(query);
  if (lang === 'ar') search.set('lang', 'ar');
  const qs = search.toString();
  return qs ? `${page}?${qs}` : page;
}

/** An answer of the API that is not a success: its problem+json body (RFC 9457), when it sent one. */
export class ApiProblem extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `The API answered ${status}.`);
    this.name = 'ApiProblem';
    this.status = status;
    this.problem = problem;
  }
}

/**
 * A fresh Idempotency-Key for one form submission. crypto.randomUUID exists only on secure pages (https,
 * localhost); elsewhere 16 random bytes in hex do the same.
 */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/**
 * The typed client of the API (clients/typescript, built into vendor/ by `npm run client:generate`): it sends the
 * publishable key with the forms (POST) only.
 */
const client = createPropertyApiClient({ baseUrl: config.apiBase, publishableKey: config.publishableKey });

/**
 * Calls the API through the client, by method and the document's path (`/api/v1/listings/{slug}`) with `params`
 * ({path, query}). A refused request (network down, or a CORS refusal: the browser gives no answer to read)
 * rejects with a TypeError, which is passed on as is; an answer that is not 2xx becomes an ApiProblem.
 *
 * With an `idempotencyKey` the request is safe to send again: the API runs it once per key and replays its first
 * answer (`Idempotent-Replayed: true`). So when the connection drops (the request may or may not have arrived),
 * it is sent again up to 2 more times, with the same key and the same body; and while the first one is still
 * running (409 idempotency_in_flight) it waits Retry-After seconds and asks again.
 */
export async function api(method, path, { params, body, idempotencyKey } = {}) {
  const init = { params, body, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} };
  let networkRetries = idempotencyKey ? 2 : 0;
  let inFlightWaits = idempotencyKey ? 10 : 0;
  for (;;) {
    let answer;
    try {
      answer = await client.request(method, path, init);
    } catch (error) {
      if (!(error instanceof TypeError) || networkRetries-- === 0) throw error;
      await sleep(1);
      continue;
    }
    const { data, error, response } = answer;
    if (response.status === 409 && error?.code === 'idempotency_in_flight' && inFlightWaits-- > 0) {
      await sleep(Number(response.headers.get('Retry-After')) || 1);
      continue;
    }
    if (!response.ok) throw new ApiProblem(response.status, error ?? null);
    return data;
  }
}

/** Shows an error in a status element: the API's `detail` and each field's message, or the network refusal. */
export function showError(el, error) {
  el.hidden = false;
  el.className = 'notice error';
  el.setAttribute('role', 'alert');
  el.replaceChildren();
  if (error instanceof ApiProblem) {
    el.dataset.outcome = 'problem';
    el.dataset.code = error.problem?.code ?? String(error.status);
    el.append(h('p', {}, error.message));
    const fields = error.problem?.errors ?? [];
    if (fields.length) el.append(h('ul', {}, ...fields.map((f) => h('li', {}, f.path ? `${f.path}: ${f.message}` : f.message))));
    return;
  }
  el.dataset.outcome = error instanceof TypeError ? 'network' : 'error';
  delete el.dataset.code;
  el.append(h('p', {}, error instanceof TypeError ? t.network : error.message));
  console.error(error);
}

/** Shows a success in a status element. */
export function showSuccess(el, ...content) {
  el.hidden = false;
  el.className = 'notice success';
  el.setAttribute('role', 'status');
  el.dataset.outcome = 'success';
  delete el.dataset.code;
  el.replaceChildren(...content);
}

/** A small element builder: h('a', {href: '/'}, 'text', child). Text is always set as text, never as HTML. */
export function h(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name in el && typeof value !== 'string') el[name] = value;
    else el.setAttribute(name, value === true ? '' : value);
  }
  el.append(...children.filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

/** An amount for people (a decimal string; formatting only, no arithmetic), as the stay page shows it. */
export function formatMoney(amount, currency) {
  return sharedMoney(amount, currency, lang);
}

/** An instant for people: in the company's time zone (config.js), the zone named, as the stay page shows it. */
export function formatInstant(at) {
  return sharedInstant(at, lang, config.timeZone);
}

export function formatPrice(price) {
  if (!price) return t.priceOnRequest;
  const per = t.per[price.period];
  return per ? `${formatMoney(price.amount, price.currency)} ${per}` : formatMoney(price.amount, price.currency);
}

/** A calendar date `YYYY-MM-DD` for people, read as a date (no time zone shift). */
export function formatDate(date) {
  const [y, m, d] = date.split('-').map(Number);
  return new Intl.DateTimeFormat(lang === 'ar' ? 'ar-AE' : 'en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(Date.UTC(y, m - 1, d)),
  );
}

/** The fields of a form that have a value, trimmed; empty ones are left out (the API refuses an empty email). */
export function filledFields(form, names) {
  const data = new FormData(form);
  const out = {};
  for (const name of names) {
    const value = String(data.get(name) ?? '').trim();
    if (value !== '') out[name] = value;
  }
  return out;
}
