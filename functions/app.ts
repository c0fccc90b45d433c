import { Scalar } from '@scalar/hono-api-reference';
import { adminGroup } from './admin/index';
import { catalogueGroup } from './catalogue/index';
import { internalGroup } from './internal/index';
import { registerEventWebhooks } from '../lib/webhooks/doc';
import { crmGroup } from './crm/index';
import { formsGroup } from './forms/index';
import { bookingsGroup } from './stay/index';
import { stayPage } from './stay/page';
import { createApp, type ServicesProvider } from '../lib/app';
import { docsPagePolicy } from '../lib/security-headers';

export const routeGroups = {
  catalogue: catalogueGroup,
  crm: crmGroup,
  forms: formsGroup,
  bookings: bookingsGroup,
} as const;

export type GroupName = keyof typeof routeGroups;

const info = {
  title: 'Property Company Public API',
  version: '1.0.0',
  description:
    'The programmatic interface of a property company’s platform. Decisions where the contract is silent are in docs/api-reference.md.',
};

/**
 * The whole API (or only some groups, for a Worker deployed per group), with its OpenAPI documents.
 * The admin API is mounted only where asked: it never runs on a company's public Worker by accident. The
 * internal callbacks (QStash's webhook deliveries) are mounted unless `internal` is false.
 */
export function buildApp(
  provide: ServicesProvider,
  options: { groups?: GroupName[]; admin?: boolean; internal?: boolean; maxBodyBytes?: number } = {},
) {
  const groups = options.groups ?? (Object.keys(routeGroups) as GroupName[]);
  // The groups' browser forms: the root app puts their CORS ahead of the body limit.
  const formPaths = groups.flatMap((name) => {
    const group = routeGroups[name];
    return 'formPaths' in group ? group.formPaths.map((path) => `/api/v1${path}`) : [];
  });
  const app = createApp(provide, { maxBodyBytes: options.maxBodyBytes, formPaths });
  for (const name of groups) app.route('/api/v1', routeGroups[name]());
  // The guest's stay page (HTML, outside /api/v1) goes with the bookings.
  if (groups.includes('bookings')) app.route('/', stayPage());
  if (options.admin) app.route('/admin/v1', adminGroup());
  if (options.internal ?? true) app.route('/internal/v1', internalGroup());
  registerEventWebhooks(app.openAPIRegistry);

  app.openAPIRegistry.registerComponent('securitySchemes', 'serverKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'A server key (sk_…) with the operation’s scope.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'publishableKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: "A publishable key (pk_…), sent by a page on one of the key's origins.",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The platform operator’s admin token.',
  });

  const documents = new Map<string, unknown>();
  const documentFor = (prefix: string, title: string) => {
    let doc = documents.get(prefix);
    if (!doc) {
      const full = app.getOpenAPI31Document({ openapi: '3.1.0', info: { ...info, title } });
      full.paths = Object.fromEntries(Object.entries(full.paths ?? {}).filter(([path]) => path.startsWith(prefix)));
      // The events a subscriber receives belong to the public document.
      if (prefix !== '/api/v1/') delete full.webhooks;
      doc = full;
      documents.set(prefix, doc);
    }
    return doc;
  };
  app.get('/api/v1/openapi.json', (c) => c.json(documentFor('/api/v1/', info.title)));
  app.get('/api/v1/docs', docsPagePolicy(), Scalar({ url: '/api/v1/openapi.json', pageTitle: info.title }));
  if (options.admin) {
    app.get('/admin/v1/openapi.json', (c) => c.json(documentFor('/admin/v1/', `${info.title} — admin`)));
  }
  return app;
}
