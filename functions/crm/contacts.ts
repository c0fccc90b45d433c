import type { Updateable } from 'kysely';
import type { Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { External } from '../../lib/external-ids';
import { linkToContact, touchContact } from '../../lib/people';
import type { ContactRow, ContactsTable } from '../../schema/crm/db';
import type { Company } from '../../schema/platform/db';

/** PATCH: name, language (null clears them), or the client's id. An erased person cannot change (409). */
export async function updateContact(
  trx: Trx,
  company: Company,
  reference: string,
  input: { name?: string | null; language?: string | null; external?: External },
  causedBy: CausedBy,
): Promise<ContactRow> {
  const current = await trx
    .selectFrom('contacts')
    .selectAll()
    .where('company_id', '=', company.id)
    .where('reference', '=', reference)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw notFound(`The contact ${reference}`);
  if (current.erased) throw new ApiError('conflict', `The contact ${reference} is erased; it cannot be changed.`);
  const set: Updateable<ContactsTable> = {};
  if (input.name !== undefined && input.name !== current.name) set.name = input.name;
  if (input.language !== undefined && input.language !== current.language) set.language = input.language;
  const linked = input.external ? await linkToContact(trx, company.id, current.id, input.external, false) : false;
  if (Object.keys(set).length === 0 && !linked) return current;
  const contact = await touchContact(trx, current.id, set);
  await recordEvent(trx, { companyId: company.id, type: 'contact.updated', causedBy, data: { reference } });
  return contact;
}
