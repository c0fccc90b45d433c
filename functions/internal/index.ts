import { createRouter } from '../../lib/app';
import { deliveries } from './deliveries.routes';

/** Platform callbacks (/internal/v1): never in the public documents, each verified by its own signature. */
export const internal = createRouter().route('/', deliveries);
