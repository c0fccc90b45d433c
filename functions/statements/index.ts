import { defineGroup } from '../../lib/compose';
import { einvoiceAnswers } from './einvoice-answers.routes';
import { invoices } from './invoices.routes';
import { journal } from './journal.routes';
import { statementJobs } from './jobs';
import { statementPages } from './page.routes';
import { statementsExport } from './statements-export.routes';
import { ownerStatements } from './statements.routes';

/**
 * Owner statements and the accounting journal (server keys, `read:leases`): what each owner is owed month by month,
 * from the lines the database books with each receipt, bounce and charge (leases' and maintenance's tables, read
 * directly); the owner's printable page (HTML at /statements/{token}); `owner_statement.ready` when a month closes.
 */
export const statements = defineGroup({
  name: 'statements',
  routes: [ownerStatements, journal, statementsExport, invoices, einvoiceAnswers],
  pages: statementPages,
  jobs: statementJobs,
});
