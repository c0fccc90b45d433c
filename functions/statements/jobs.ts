import { keyringOf } from '../../lib/crypto-jwe';
import { sendDueEinvoices, warnDueEinvoices } from '../../lib/einvoice/handoff';
import type { ScheduledJob } from '../../lib/scheduler';
import { announceReadyStatements } from './ready';

/**
 * Owners' months that closed (owner_statement.ready, once per owner and month); e-invoices handed to the companies'
 * Accredited Service Providers (reaching outside: held while outbound work is paused); `invoice.einvoice_due` once per
 * document not yet accepted near its deadline (lib/einvoice/handoff.ts).
 */
export const statementJobs: ScheduledJob[] = [
  { name: 'owner_statement_ready', run: ({ db, now }) => announceReadyStatements(db, now()) },
  {
    name: 'einvoice_handoff',
    outbound: true,
    run: ({ db, webhooks, config }) => sendDueEinvoices(db, webhooks, keyringOf(config)),
  },
  { name: 'einvoice_due', run: ({ db, now }) => warnDueEinvoices(db, now()) },
];
