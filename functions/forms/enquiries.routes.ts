import { defineRoute, requireLeadType } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { auditRead } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { passesFormGuard } from '../../lib/form-guard';
import { leadView } from '../../lib/lead-reads';
import { newReference } from '../../lib/references';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { LeadSchema } from '../../schema/common/lead-shape';
import { FormLeadAnswer, LeadFormInput } from '../../schema/forms/enquiries';
import { checkLead, leadTypeOf, recordFormLead } from './enquiry-checks';

/**
 * POST /leads: an enquiry from the visitor's browser (publishable key, from one of its origins, with the spam
 * check), or from the company's own server (server key with `write:leads`, trusted: no origin or spam check).
 */
const postRoute = defineRoute({
  method: 'post',
  path: '/leads',
  tags: ['Forms'],
  summary: 'Send an enquiry (lead)',
  description:
    "From the visitor's browser with a publishable key (X-Api-Key) from one of the key's origins, with `challenge`; or from the company's server with a server key holding `write:leads`. Consent is required on both paths. For a service of kind `listing_request`, the details `purpose`, `area`, `property_type`, `bedrooms`, `bathrooms`, `size_sqm`, `price` and `price_period` must be valid when present (400 at `details.<key>`). A visitor's enquiry is matched to a person by its email, or by its phone only when it sends no email; it never changes a person already known (docs/api-reference.md, \"Matching people\").",
  access: { kind: 'form', scopes: ['write:leads'] },
  request: {
    body: jsonBody(LeadFormInput, {
      consent: true,
      consent_version: '2026-01',
      name: 'Omar Said',
      email: 'omar.said@example.com',
      message: 'Is the flat still available?',
    }),
  },
  responses: {
    201: json(
      FormLeadAnswer.or(LeadSchema),
      "Recorded. A browser (publishable key) gets only the lead's `reference`; a server key gets the whole lead.",
    ),
    403: problem(
      'Key unknown, revoked or of another company; origin not on the key (`origin_not_allowed`); lead type not on the key (`lead_type_not_allowed`); spam check failed (`challenge_failed`).',
    ),
    503: problem(
      'The spam check could not be asked (`spam_check_unavailable`), or details were sent but no encryption key is configured (`encryption_unavailable`); nothing was recorded.',
    ),
  },
});

/**
 * The rules are checked before anything is written (a round trip only when a service is named); a browser's form
 * then passes the spam check; the lead is written in one statement (functions/forms/lead-record.ts recordLead).
 */
const recordEnquiry: Handler<typeof postRoute> = async function recordEnquiry(c) {
  const { challenge, website, ...input } = c.req.valid('json');
  const { db, config, clientAddress, now } = c.var.services;
  const { company, caller } = c.var;
  const leadType = await leadTypeOf(db, company.id, input.service);
  const check = () => checkLead(db, company.id, input, leadType);
  const browser = caller.kind === 'publishable';
  if (browser) {
    requireLeadType(caller, leadType);
    if (!(await passesFormGuard(c, { challenge, website }, check))) return c.json({ reference: newReference('L') }, 201);
  } else {
    await check();
  }
  const keyring = keyringOf(config);
  const sent = browser ? { origins: caller.key.origins, consentAddress: clientAddress } : {};
  const lead = await recordFormLead(db, company, { ...input, keyring, ...sent }, caller, now());
  if (browser) return c.json({ reference: lead.reference }, 201);
  const view = await leadView(db, company.id, lead.id, keyring);
  await auditRead(c, [view.reference]);
  return c.json(view, 201);
};

export const enquiryForms = createRouter().openapi(postRoute, recordEnquiry);
