import { addDays, todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import { matchOrCreateContact } from '../../lib/people';
import type { Company } from '../../schema/platform/db';
import { addCharge, changeCharge } from './charges';
import { addContractor, changeContractor } from './contractors';
import { planInspection } from './inspections';
import { cancelJob, completeJob, recordApproval, scheduleJob } from './job-status';
import { addJob } from './jobs';
import { stale, type WriteScope } from '../../lib/write';

const system = 'system' as const;
const studio = 'jvc-studio-holiday-home';

/**
 * The maintenance demo, written through the group's own domain functions: three contractors (a firm, a sole trader,
 * a stopped firm), jobs in every status (one scheduled with the holiday studio's calendar blocked, one awaiting the owner's
 * approval above the home's limit), charges booked, paid and cancelled, and routine inspections with their areas.
 * Needs the catalogue's demo listings.
 */
export async function seedMaintenanceDemo(trx: Trx, company: Company, now: Date): Promise<void> {
  const today = todayIn(company.time_zone, now);
  const scope: WriteScope = { db: trx, company, now, causedBy: system };
  const contractor = async (input: Parameters<typeof addContractor>[1]) => {
    const added = await addContractor(scope, input);
    if (added === stale) throw new Error('the demo contractor was not added');
    return added.row.id;
  };
  const cool = await contractor({
    name: 'Gulf Cool Air Conditioning LLC',
    kind: 'firm',
    trades: ['air_conditioning'],
    email: 'jobs@gulfcool.example',
  });
  const plumber = await contractor({ name: 'Rashid Ali', kind: 'sole_trader', trades: ['plumbing'], phone: '+971501230000' });
  const painters = await contractor({ name: 'Brush & Roll Painting', kind: 'firm', trades: ['painting'] });

  const { contact: owner } = await matchOrCreateContact(
    trx,
    company,
    { name: 'Huda Al Mansoori', email: 'owner@demo-properties.ae', roles: ['owner'] },
    system,
  );
  for (const [slug, limit] of [
    ['jvc-2br-townhouse', null],
    ['al-reem-3br-sea-view', '2000.00'],
  ] as const) {
    const listing = await trx
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', company.id)
      .where('slug_en', '=', slug)
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('maintenance_homes')
      .values({ listing_id: listing.id, company_id: company.id, owner_id: owner.id, approval_limit: limit })
      .execute();
  }

  const job = async (input: Omit<Parameters<typeof addJob>[1], 'priority' | 'payer'> & Partial<Parameters<typeof addJob>[1]>) => {
    const added = await addJob(scope, { priority: 'normal', payer: 'owner', ...input });
    if (added === stale) throw new Error('the demo job was not added');
    return added.row.reference;
  };
  await job({
    home: 'marina-gate-1br-furnished',
    category: 'air_conditioning',
    priority: 'urgent',
    problem: 'The bedroom air conditioning blows warm air.',
    contractor: cool,
    external: { source: 'helpdesk', id: 'ticket-1001' },
  });
  const leak = await job({
    home: studio,
    category: 'plumbing',
    priority: 'high',
    problem: 'The guest bathroom shower drains slowly.',
    estimate: '350.00',
    external: { source: 'helpdesk', id: 'ticket-1002' },
  });
  await scheduleJob(scope, leak, {
    day: addDays(today, 14),
    window: { start: '09:00', end: '12:00' },
    contractor: plumber,
    block_calendar: true,
  });
  const walls = await job({
    home: 'jvc-2br-townhouse',
    category: 'painting',
    problem: 'Scuffed walls in the living room.',
    estimate: '1200.00',
  });
  await scheduleJob(scope, walls, { day: addDays(today, -10), contractor: painters, block_calendar: false });
  await completeJob(scope, walls, { work_done: 'Two coats on the living room walls.', done_on: addDays(today, -9) });
  await trx.updateTable('jobs').set({ photo_count: 3 }).where('reference', '=', walls).execute();
  await changeContractor(scope, painters, { status: 'stopped' });
  const door = await job({
    home: 'business-bay-fitted-office',
    category: 'locks',
    problem: 'The front door lock sticks.',
    payer: 'company',
  });
  await cancelJob(scope, door, { reason: 'The tenant’s locksmith fixed it.' });
  const kitchen = await job({
    home: 'al-reem-3br-sea-view',
    category: 'appliance',
    problem: 'Replace the built-in oven.',
    estimate: '5400.00',
  });
  await recordApproval(scope, kitchen, { decision: 'requested', note: 'Quote sent to the owner.' });

  const charge = async (input: Parameters<typeof addCharge>[1]) => {
    const added = await addCharge(scope, input);
    if (added === stale) throw new Error('the demo charge was not added');
    return added.row.id;
  };
  await charge({ job: walls, cost: '1150.00', description: 'Painting, labour and paint' });
  const renters = await charge({
    job: walls,
    cost: '120.00',
    payer: 'renter',
    description: 'Picture hooks the renter asked for',
  });
  await changeCharge(scope, renters, { status: 'paid' });
  const mistake = await charge({ job: walls, cost: '1500.00', description: 'Entered twice' });
  await changeCharge(scope, mistake, { status: 'cancelled' });

  const areas = (names: string[]) => names.map((name) => ({ name }));
  await planInspection(scope, {
    kind: 'routine',
    home: 'jvc-2br-townhouse',
    planned_on: addDays(today, 30),
    areas: areas(['Living room', 'Kitchen', 'Bedrooms', 'Garden']),
  });
  await planInspection(scope, {
    kind: 'routine',
    home: studio,
    planned_on: addDays(today, -20),
    notes: 'Before the winter season.',
    areas: [
      { name: 'Pool', condition: 'good' },
      { name: 'Kitchen', condition: 'fair', notes: 'Oven door seal worn.' },
    ],
  });
}
