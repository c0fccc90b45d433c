import { html, raw } from 'hono/html';
import { countries, documentTypes, type GuestProblem } from '../../schema/stay/guests';
import { guestTexts } from './guest-texts';
import type { StayLanguage } from './page-texts';

/**
 * The stay page's guest registration (issue 37): the state (how many of the booking's guests are registered, never who)
 * and, while the booking takes one, the form: one row per guest of the booking (name, nationality, document and its
 * number, date of birth) and the consent, posted to /stay/{token}/guests without script. A refused form is shown again
 * with what was sent and each problem beside its field (guests.page.ts).
 */
export type GuestFormState = {
  expected: number;
  registered: number | null;
  open: boolean;
  /** What was sent, by field name, and the problems at their fields (a refused form). */
  sent?: Record<string, string>;
  problems?: GuestProblem[];
};

const nationalityNames = new Map<StayLanguage, Array<[string, string]>>();

/** Every nationality in `language`, by name (computed once per language). */
function nationalities(language: StayLanguage): Array<[string, string]> {
  let list = nationalityNames.get(language);
  if (!list) {
    const names = new Intl.DisplayNames([language], { type: 'region' });
    list = countries.map((code): [string, string] => [code, names.of(code) ?? code]);
    list.sort((a, b) => a[1].localeCompare(b[1], language));
    nationalityNames.set(language, list);
  }
  return list;
}

export function registrationSection(language: StayLanguage, token: string, state: GuestFormState) {
  const t = guestTexts[language];
  const sent = state.sent ?? {};
  const problems = state.problems ?? [];
  const problemAt = (path: string) => {
    const found = problems.filter((p) => p.path === path);
    return found.map(
      (p) => html`<p class="problem" data-field="${p.path}" data-problem="${p.code}">${t.problems[p.code] ?? p.message}</p>`,
    );
  };
  const status =
    state.registered && state.registered > 0
      ? html`<p data-registered="${state.registered}">${t.registered(state.registered, state.expected)}</p>`
      : html`<p data-registered="0">${t.missing}</p>`;
  if (!state.open) return html`<section id="registration" data-registration>${status}</section>`;
  const rows = Array.from({ length: state.expected }, (_, index) => {
    const field = (name: string) => `guests[${index}].${name}`;
    const value = (name: string) => sent[field(name)] ?? '';
    const input = (name: string, label: string, type = 'text', extra = '') =>
      html`<label>${label}<input type="${type}" name="${field(name)}" value="${value(name)}" ${raw(extra)}></label>${problemAt(field(name))}`;
    const chosen = value('nationality').toUpperCase();
    const type = value('document_type');
    return html`<fieldset data-guest="${index + 1}">
<legend>${t.guest(index + 1)}</legend>
${input('name', t.name, 'text', 'maxlength="200" autocomplete="off"')}
<label>${t.nationality}<select name="${field('nationality')}"><option value="">${t.choose}</option>${nationalities(language).map(
      ([code, name]) => html`<option value="${code}"${code === chosen ? ' selected' : ''}>${name}</option>`,
    )}</select></label>${problemAt(field('nationality'))}
<label>${t.documentType}<select name="${field('document_type')}"><option value="">${t.choose}</option>${documentTypes.map(
      (d) => html`<option value="${d}"${d === type ? ' selected' : ''}>${t.documentTypes[d]}</option>`,
    )}</select></label>${problemAt(field('document_type'))}
${input('document_number', t.documentNumber, 'text', 'maxlength="40" autocomplete="off"')}
${input('birth_date', t.birthDate, 'date')}
</fieldset>`;
  });
  return html`<section id="registration" data-registration>
<h2>${t.title}</h2>
<p>${t.note}</p>
${status}
${problems.length > 0 ? html`<h3 data-problems>${t.problemsTitle}</h3>${problemAt('guests')}` : ''}
<form method="post" action="/stay/${token}/guests">
${rows}
<label><input type="checkbox" name="consent" value="yes"> ${t.consent}</label>${problemAt('consent')}
<p>${t.replace}</p>
<button type="submit" data-register>${t.submit}</button>
</form>
</section>`;
}
