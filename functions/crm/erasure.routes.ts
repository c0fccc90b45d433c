import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { notFound } from '../../lib/errors';
import { eraseContact } from './erasure';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { json } from '../../schema/common/api';

const params = companyParam.extend({ reference: z.string().regex(/^P-[0-9A-Z]{10}$/) });

const erase = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/contacts/{reference}/erase',
  summary: 'Erase a person and their leads (a privacy request). Irreversible.',
  request: { params },
  responses: { 200: json(z.object({ reference: z.string(), erased: z.literal(true), already_erased: z.boolean() })) },
});

export const erasureAdmin = createRouter().openapi(erase, async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const result = await c.var.services.db.transaction().execute(async (trx) => {
    const contact = await trx
      .selectFrom('contacts')
      .select(['id', 'erased'])
      .where('company_id', '=', company_id)
      .where('reference', '=', reference)
      .executeTakeFirst();
    if (!contact) throw notFound(`The person ${reference}`);
    const erasedNow = await eraseContact(trx, company_id, contact.id, 'admin');
    return { already_erased: !erasedNow };
  });
  return c.json({ reference, erased: true as const, ...result }, 200);
});
