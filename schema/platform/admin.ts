import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { isSupportedCountry } from 'libphonenumber-js';
import { listingTypes } from '../common/columns';
import { markets } from '../common/permits';
import { decimalInput, decimalOf, percentInput } from '../common/money';
import { leadTypes, scopes } from '../common/scopes';
import { hookUrl } from './webhooks';
import { calendarDate } from '../common/api';
import { rentVatAccountedBy, type TaxCategory, TaxCategoriesInput, taxCategories, taxKinds, trnInput } from '../common/tax';

const host = text()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9.-]+$|^\[[0-9a-f:]+\]$/, 'A host name in lower case, without scheme or port.');

const pathPattern = text()
  .max(200)
  .regex(/^\/.*\{slug\}/, 'A path starting with "/" that contains {slug}.');

/**
 * A journal account's code (Xero) and name (QuickBooks): printable text (no control character: C0, DEL, C1) that a
 * spreadsheet cannot take for a formula. Written without the `u` flag, so the OpenAPI pattern is the same expression.
 */
const accountText = text()
  .min(1)
  .max(100)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range of control characters is what it refuses.
  .regex(/^(?![=+@-])[^\u0000-\u001f\u007f-\u009f]+$/, 'Printable text, not starting with = + - or @.');
const account = z.strictObject({ code: accountText, name: accountText });
const accountingAccountsShape = {
  rent_income: account,
  owner_payable: account,
  fees: account,
  deposits_held: account,
  maintenance: account,
  payment_clearing: account,
  payment_fees: account,
  refunds_due: account,
  booking_receipts: account,
  vat_payable: account,
  tourism_dirham_payable: account,
  bank: account,
};

/** Price band edges (issue 36's facets): ascending decimals above 0, at most 20. */
const priceEdges = z
  .array(decimalInput)
  .min(1)
  .max(20)
  .superRefine((edges, ctx) => {
    edges.forEach((edge, i) => {
      const value = decimalOf(edge);
      const before = i > 0 ? decimalOf(edges[i - 1]) : undefined;
      if (value?.lte(0)) ctx.addIssue({ code: 'custom', path: [i], message: 'An edge is above 0.' });
      else if (value && before && value.lte(before))
        ctx.addIssue({ code: 'custom', path: [i], message: 'Edges ascend: each above the one before.' });
    });
  });

export const CompanySettingsInput = z
  .strictObject({
    hide_prices: z.boolean(),
    enabled_types: z.array(z.enum(listingTypes)).min(1),
    path_pattern: z.strictObject({ en: pathPattern, ar: pathPattern }).partial(),
    team_module: z.boolean(),
    bookings_enabled: z.boolean(),
    media_base_url: text().url(),
    site_url: text().url(),
    rebuild_hook_url: hookUrl.nullable().openapi({
      description: 'Static-site build hook: one POST per coalesced batch of changes to published listings; null removes it.',
    }),
    // Phone numbers written without + are read in this country (ISO 3166-1 alpha-2), e.g. AE; unset: the time zone's country.
    phone_country: text().refine(
      (code) => isSupportedCountry(code),
      'An ISO 3166-1 alpha-2 country code in upper case, e.g. AE.',
    ),
    // A lead with no first answer (a call logged) this many minutes after it arrived is escalated; null: off.
    lead_answer_minutes: z.number().int().min(1).max(43200).nullable(),
    // A WhatsApp message within this many hours of the last one of an open lead joins that lead (inbound channels).
    inbound_conversation_hours: z.number().int().min(1).max(720),
    // Booking requests hold their dates this many hours while staff confirm (then scheduled work cancels them).
    booking_hold_hours: z.number().int().min(1).max(720),
    // People untouched for this many days are erased by scheduled work; null keeps them.
    retention_days: z.number().int().min(1).max(36500).nullable(),
    // Leases: the company rules behind the lease warnings and overdue rent (docs/api-reference.md, "Leases and rent payments").
    lease_notice_days: z
      .number()
      .int()
      .min(0)
      .max(3650)
      .openapi({ description: 'The notice period, in days, of a lease that states none (default 90).' }),
    lease_rent_cap_percent: percentInput.nullable().openapi({
      description: '`rent_above_cap` when a renewal raises the rent by more than this percentage (default "5"); null: no cap.',
    }),
    lease_deposit_percent: percentInput.nullable().openapi({
      description:
        '`deposit_above_default` when the deposit is above this percentage of a year’s rent (default "5"); null: no check.',
    }),
    lease_schedule_tolerance: decimalInput.openapi({
      description: '`schedule_total_differs` when explicit rows sum further than this from the term’s rent (default "0").',
    }),
    rent_grace_days: z
      .number()
      .int()
      .min(0)
      .max(365)
      .openapi({ description: 'A payment still due is overdue once this many days have passed after its due date (default 5).' }),
    // Maintenance (docs/api-reference.md, "Maintenance"); a home's own limit (admin maintenance settings) comes first.
    maintenance_approval_limit: decimalInput.nullable().openapi({
      description: '`approval_needed` when a job’s estimate is above this amount (default null: no limit).',
    }),
    // Owner statements and the journal (docs/api-reference.md, "Owner statements and the accounting journal").
    statement_grace_days: z.number().int().min(0).max(28).openapi({
      description:
        'A month’s statements are closed (and `owner_statement.ready` sent) this many days after it ends (default 5). A change applies to the months not yet closed: a closed month stays closed.',
    }),
    statement_balance: z.enum(['none', 'carried']).openapi({
      description: '`carried`: statements show an opening and a closing balance per currency; `none` (default): no balance.',
    }),
    accounting_accounts: z.strictObject(accountingAccountsShape).partial().openapi({
      description: 'The accounts the journal posts to: each `{code, name}` (Xero takes the code, QuickBooks the name).',
    }),
    accounting_xero_tax_rate: accountText.openapi({
      description: 'The Xero tax rate name on every journal line (default "Tax Exempt").',
    }),
    accounting_tax_rates: z
      .strictObject(
        Object.fromEntries(taxCategories.map((category) => [category, accountText])) as Record<TaxCategory, typeof accountText>,
      )
      .partial()
      .openapi({
        description:
          'The tax rate name the journal CSVs (Xero `*TaxRate`, QuickBooks `Tax Code`) give the rows of a supply of each category (its income and VAT rows); replaced as a whole. Defaults: standard "Standard Rated (5%)", zero_rated "Zero Rated", exempt "Exempt", out_of_scope "No VAT".',
      }),
    accounting_date_order: z.enum(['day_first', 'month_first']).openapi({
      description: 'QuickBooks journal dates: `day_first` DD/MM/YYYY (default) or `month_first` MM/DD/YYYY.',
    }),
    // Portals (docs/api-reference.md, "Portals and advertising permits").
    market: z.enum(markets).nullable().openapi({
      description:
        'dubai: every listing for sale or lease needs a Trakheesi permit (dld), every holiday home a holiday-home permit (dtcm); null: none.',
    }),
    permit_reminder_days: z
      .number()
      .int()
      .min(1)
      .max(365)
      .openapi({ description: '`listing.permit_expiring` this many days before a live permit’s last day (default 14).' }),
    // Tax (docs/api-reference.md, "Tax").
    trn: trnInput.nullable().openapi({
      description:
        'The UAE Tax Registration Number: 15 digits starting with 100 and ending with 03 (else `invalid_trn`); null removes it.',
      example: '100123456700003',
    }),
    vat_registered_on: calendarDate.nullable().openapi({ description: 'The day the VAT registration took effect.' }),
    tax_categories: TaxCategoriesInput.openapi({
      description:
        'The category of each kind of amount, merged into the current ones (a kind left out keeps its category; unset kinds take the defaults of docs/api-reference.md, "Tax").',
    }),
    legal_name: text().min(1).max(200).nullable().openapi({
      description: 'The company’s legal name as registered, on its tax invoices (default: its name).',
    }),
    address: z
      .strictObject({
        line1: text().min(1).max(200),
        line2: text().min(1).max(200).nullable().optional(),
        city: text().min(1).max(100),
        emirate: z.enum(['AUH', 'DXB', 'SHJ', 'UAQ', 'FUJ', 'AJM', 'RAK']).openapi({
          description: 'The emirate, as PINT AE codes it (ibr-128-ae): AUH, DXB, SHJ, UAQ, FUJ, AJM, RAK.',
        }),
      })
      .nullable()
      .openapi({ description: 'The company’s address on its tax invoices (required to issue them; replaced as a whole).' }),
    trade_licence: z
      .strictObject({
        number: text().min(1).max(50),
        authority: text().min(1).max(100).openapi({ description: 'Who issued it, e.g. "Dubai Economy and Tourism".' }),
      })
      .nullable()
      .openapi({ description: 'The trade licence (the seller’s legal registration on its invoices, IBT-030, BTAE-11).' }),
    search_price_bands: z
      .strictObject(
        Object.fromEntries(listingTypes.map((type) => [type, priceEdges])) as Record<
          (typeof listingTypes)[number],
          typeof priceEdges
        >,
      )
      .partial()
      .nullable()
      .openapi({
        description:
          'The edges of the price bands `GET /listings?facets=price` counts in, per listing type, in the company’s currency and each listing’s own period: 1 to 20 ascending decimals above 0. Replaced as a whole; a type left out (or null) takes the defaults of docs/api-reference.md, "Facets".',
      }),
    rent_vat_accounted_by: z.enum(rentVatAccountedBy).openapi({
      description:
        'Who accounts for the VAT on rent: `owner` (default: the company bills the rent as the landlord’s disclosed agent; the rent’s VAT stays in the owner’s money, shown on their statement for them to declare) or `company` (the company lets the home as principal: a `rent_vat` line takes the rent’s VAT and the journal books it to `vat_payable`). Read at each receipt and kept with it: a change never rewrites a past receipt.',
    }),
  })
  .partial();

const timeZone = text().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'An IANA time zone such as Asia/Dubai.');

export const CreateCompanyInput = z.strictObject({
  name: text().min(1).max(200),
  hosts: z.array(host).min(1).max(20),
  environment: z.enum(['production', 'development']),
  currency: text().regex(/^[A-Z]{3}$/, 'An ISO 4217 code such as AED.'),
  time_zone: timeZone,
  settings: CompanySettingsInput.default({}),
});

export const UpdateCompanyInput = z.strictObject({
  name: text().min(1).max(200).optional(),
  hosts: z.array(host).min(1).max(20).optional(),
  settings: CompanySettingsInput.optional().openapi({ description: 'Merged into the current settings.' }),
});

/** The company's Accredited Service Provider as the admin API shows it: never its secret. */
export const EinvoicingSchema = z
  .object({
    configured: z.boolean(),
    url: z.string().nullable().openapi({ description: 'Where its e-invoices are handed off (POST, PINT AE XML).' }),
  })
  .openapi('AdminEinvoicing', {
    description:
      'The company’s Accredited Service Provider (PUT /companies/{company_id}/einvoicing): its endpoint, and whether the shared secret is set (never shown).',
  });

/** PUT /companies/{company_id}/einvoicing. */
export const EinvoicingInput = z
  .strictObject({
    url: text().max(2000).openapi({
      description:
        'The provider’s endpoint: an absolute URL; a production workspace takes https only, never a private or loopback address (the webhooks’ rules).',
      example: 'https://asp.example/einvoices',
    }),
    secret: text()
      .max(200)
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'A Standard Webhooks secret: whsec_ and base64 of at least 24 bytes.')
      .openapi({ description: 'The secret the company shares with its provider (whsec_…), both directions signed with it.' }),
  })
  .openapi('AdminEinvoicingInput');

export const CompanySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    environment: z.enum(['production', 'development']),
    currency: z.string(),
    time_zone: z.string(),
    hosts: z.array(z.string()),
    settings: z.record(z.string(), z.unknown()),
    tax: z
      .object({
        trn: z.string().nullable(),
        vat_registered_on: z.string().nullable(),
        categories: z.object(
          Object.fromEntries(taxKinds.map((kind) => [kind, z.enum(taxCategories)])) as Record<
            (typeof taxKinds)[number],
            z.ZodEnum<{ [K in (typeof taxCategories)[number]]: K }>
          >,
        ),
      })
      .openapi('AdminCompanyTax', {
        description: 'The company’s tax settings as they apply: every kind’s category, its own or the default.',
      }),
    spam_check: z.object({ configured: z.boolean() }).openapi({
      description: 'Whether a Turnstile secret is set (PUT /companies/{company_id}/spam-check); the secret is never shown.',
    }),
    einvoicing: EinvoicingSchema,
    created_at: z.string(),
  })
  .openapi('AdminCompany');

export const origin = text()
  .url()
  .refine((o) => {
    // Reached also when .url() refused the text (its issue does not stop the field's checks): never a throw, a 500.
    try {
      const u = new URL(o);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === o;
    } catch {
      return false;
    }
  }, 'An exact origin: scheme, host and optional port, nothing else (e.g. https://www.example.com).');

export const CreateKeyInput = z
  .strictObject({
    kind: z.enum(['server', 'publishable']),
    name: text().max(200).default(''),
    scopes: z.array(z.enum(scopes)).default([]),
    origins: z.array(origin).max(50).default([]),
    lead_types: z
      .array(z.enum(leadTypes))
      .max(leadTypes.length)
      .optional()
      .openapi({ description: 'Publishable keys: what the key may send. Default `["enquiry"]`.' }),
  })
  .superRefine((key, ctx) => {
    if (key.kind === 'server' && key.scopes.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['scopes'], message: 'A server key needs at least one scope.' });
    }
    if (key.kind === 'server' && key.origins.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['origins'], message: 'Server keys are never used from a browser.' });
    }
    if (key.kind === 'publishable' && key.scopes.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['scopes'], message: 'Publishable keys have no scopes; they only send forms.' });
    }
    if (key.kind === 'server' && key.lead_types !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['lead_types'], message: 'Server keys do not send browser forms.' });
    }
    if (key.kind === 'publishable' && key.origins.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['origins'], message: 'A publishable key needs the origins it is used from.' });
    }
  });

export const KeySchema = z
  .object({
    prefix: z.string(),
    kind: z.enum(['server', 'publishable']),
    name: z.string(),
    scopes: z.array(z.string()),
    origins: z.array(z.string()),
    lead_types: z.array(z.string()),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    api_version: z.string().openapi({
      description:
        'The API version its requests are served at when they send no `Api-Version` header: the current one when the key was made (docs/api-reference.md, "API versions").',
      example: '2026-11-29',
    }),
  })
  .openapi('AdminKey');

/** A key's changes: only its pinned API version (an unknown version is refused with 400 at `api_version`). */
export const UpdateKeyInput = z
  .strictObject({
    api_version: text()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'A version is a date, YYYY-MM-DD.')
      .openapi({
        description: 'The API version to pin the key to (one of the versions in the `Api-Version` header).',
        example: '2026-11-30',
      }),
  })
  .openapi('AdminKeyUpdate');

export const KeyWithSecretSchema = KeySchema.extend({
  secret: z.string().openapi({ description: 'Shown once; only its hash is stored.' }),
}).openapi('AdminKeyWithSecret');
