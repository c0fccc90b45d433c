import type { Trx } from '../../lib/db/index';
import type { PipelineInputValue } from '../../schema/pipelines/pipelines';
import { createPipeline } from './pipelines';

/** The demo company's pipelines: one for sales, one for leasing, in English and Arabic. */
export const demoPipelines: PipelineInputValue[] = [
  {
    key: 'sales',
    name: { en: 'Sales', ar: 'المبيعات' },
    purpose: 'sales',
    stages: [
      { key: 'new', name: { en: 'New', ar: 'جديد' }, kind: 'open', probability: 10 },
      { key: 'viewing', name: { en: 'Viewing', ar: 'معاينة' }, kind: 'open', probability: 30 },
      { key: 'offer', name: { en: 'Offer made', ar: 'تم تقديم عرض' }, kind: 'open', probability: 60 },
      { key: 'transfer', name: { en: 'Transfer booked', ar: 'موعد نقل الملكية' }, kind: 'open', probability: 90 },
      { key: 'won', name: { en: 'Sold', ar: 'تم البيع' }, kind: 'won', probability: 100 },
      { key: 'lost', name: { en: 'Lost', ar: 'خسارة' }, kind: 'lost', probability: 0 },
    ],
  },
  {
    key: 'leasing',
    name: { en: 'Leasing', ar: 'التأجير' },
    purpose: 'leasing',
    stages: [
      { key: 'new', name: { en: 'New', ar: 'جديد' }, kind: 'open', probability: 10 },
      { key: 'viewing', name: { en: 'Viewing', ar: 'معاينة' }, kind: 'open', probability: 40 },
      { key: 'application', name: { en: 'Application', ar: 'طلب إيجار' }, kind: 'open', probability: 70 },
      { key: 'won', name: { en: 'Leased', ar: 'تم التأجير' }, kind: 'won', probability: 100 },
      { key: 'lost', name: { en: 'Lost', ar: 'خسارة' }, kind: 'lost', probability: 0 },
    ],
  },
];

export async function seedPipelinesDemo(trx: Trx, companyId: string): Promise<void> {
  for (const pipeline of demoPipelines) await createPipeline(trx, companyId, pipeline);
}
