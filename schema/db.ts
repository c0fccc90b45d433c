import type { CatalogueTables } from './catalogue/db';
import type { CrmTables } from './crm/db';
import type { FormTables } from './forms/db';
import type { LeaseTables } from './leases/db';
import type { PipelineTables } from './pipelines/db';
import type { MaintenanceTables } from './maintenance/db';
import type { PaymentTables } from './platform/payments-db';
import type { PlatformTables } from './platform/db';
import type { StatementTables } from './statements/db';
import type { BookingTables } from './stay/db';

/** The whole database as Kysely sees it: each group's tables (schema/<group>/db.ts) and the platform's. */
export interface Database
  extends PlatformTables,
    CatalogueTables,
    CrmTables,
    FormTables,
    BookingTables,
    LeaseTables,
    MaintenanceTables,
    PipelineTables,
    StatementTables,
    PaymentTables {}
