import { beforeAll, describe, expect, it } from 'vitest';
import { operationIdOf } from '../../lib/openapi';
import { testClient } from '../support/client';
import { demoCompany, useApi } from '../support/world';

/**
 * What the published documents promise integrators and linters (Redocly, Spectral: npm run lint:openapi in CI):
 * a stable, unique operationId on every operation (the typed client and the collection are named by them), tags
 * declared with a description, who may call each operation in words and in `x-scopes`, servers, a contact, no
 * unused component, and the 304 of conditional reads.
 */
let host: string;
let publicDoc: any;
let adminDoc: any;
const api = useApi();
beforeAll(async () => {
  ({ host } = await demoCompany(api));
  [publicDoc, adminDoc] = await Promise.all(
    ['/api/v1/openapi.json', '/admin/v1/openapi.json'].map(
      async (path) =>
        // raw: the documents are not operations they declare
        (await api.request(path)).json,
    ),
  );
});

const operationsOf = (doc: any, section = 'paths') =>
  Object.entries<any>(doc[section] ?? {}).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, operation]) => ({ method, path, operation })),
  );

/** The public operation ids: renaming one renames a typed client's call, so a change here is deliberate. */
const publicIds = [
  'listListings',
  'listListingMapPoints',
  'getListing',
  'listAreas',
  'listFilters',
  'listTeamProfiles',
  'getSitemap',
  'listServices',
  // The catalogue written by integrations (issue 38).
  'putListingByExternalId',
  'publishListingByExternalId',
  'withdrawListingByExternalId',
  'listContacts',
  'createContact',
  'getContact',
  'updateContact',
  'listMembers',
  'listDepartments',
  'listLeads',
  'createLead',
  'getLead',
  'updateLead',
  'listActivities',
  'createActivity',
  'listTasks',
  'createTask',
  'getTask',
  'updateTask',
  'createSavedSearch',
  'listSavedSearches',
  'listSavedSearchMatches',
  'getSavedSearch',
  'stopSavedSearch',
  'confirmWhatsAppSubscription',
  'receiveWhatsAppMessages',
  'receivePropertyFinderLeads',
  'receiveSignedLeads',
  'getListingAvailability',
  'getListingCalendarFeed',
  'getListingQuote',
  'createBooking',
  'listBookings',
  'getListingRates',
  'setListingRates',
  'receiveRatePush',
  'getBooking',
  'updateBooking',
  'confirmBooking',
  'cancelBooking',
  'createChannelBooking',
  'getTourismDirhamMonth',
  'listLeases',
  'createLease',
  'getLease',
  'updateLease',
  'activateLease',
  'recordLeaseNotice',
  'endLease',
  'renewLease',
  'listRentPayments',
  'createRentPayment',
  'getRentPayment',
  'updateRentPayment',
  'createRentPaymentLink',
  'listRentMandates',
  'getRentMandate',
  'updateRentMandate',
  'createRentMandate',
  'listJobs',
  'createJob',
  'getJob',
  'updateJob',
  'scheduleJob',
  'completeJob',
  'cancelJob',
  'recordJobApproval',
  'listJobCharges',
  'createJobCharge',
  'getJobCharge',
  'updateJobCharge',
  'listContractors',
  'createContractor',
  'getContractor',
  'updateContractor',
  'listInspections',
  'createInspection',
  'getInspection',
  'listPipelines',
  'listDeals',
  'createDeal',
  'getDeal',
  'updateDeal',
  'moveDeal',
  'listViewings',
  'createViewing',
  'getViewing',
  'updateViewing',
  'listOwnerStatementMonths',
  'getOwnerStatement',
  'createOwnerStatementLink',
  'getJournalExport',
  'getOwnerStatementsExport',
  'listInvoices',
  'getInvoicePage',
  'getInvoice',
  'getInvoiceXml',
  'receiveEinvoiceAnswer',
  'getPropertyFinderFeed',
  'getBayutFeed',
  'listPortalChecks',
  'receivePaymentWebhook',
  'listEvents',
  'getEventsFeed',
  'getAuditLogExport',
  'listWebhookEndpoints',
  'createWebhookEndpoint',
  'getWebhookEndpoint',
  'updateWebhookEndpoint',
  'deleteWebhookEndpoint',
  'rotateWebhookEndpointSecret',
  'listWebhookEndpointDeliveries',
  'recoverWebhookEndpoint',
];

describe('operation ids', () => {
  it('derives them from the method and path', () => {
    expect(operationIdOf('get', '/listings')).toBe('listListings');
    expect(operationIdOf('get', '/listings/{slug}')).toBe('getListing');
    expect(operationIdOf('post', '/leads')).toBe('createLead');
    expect(operationIdOf('patch', '/rent-payments/{payment_id}')).toBe('updateRentPayment');
    expect(operationIdOf('post', '/leases/{reference}/activate')).toBe('activateLease');
    expect(operationIdOf('get', '/listings/{slug}/availability')).toBe('getListingAvailability');
    expect(operationIdOf('get', '/companies/{company_id}/keys')).toBe('listCompanyKeys');
    expect(operationIdOf('post', '/companies/{company_id}/bookings/{reference}/mark-paid')).toBe('markCompanyBookingPaid');
    expect(operationIdOf('put', '/companies/{company_id}/services/{key}')).toBe('setCompanyService');
    expect(operationIdOf('delete', '/companies/{company_id}/listings/{slug}/blocks/{block_id}')).toBe(
      'deleteCompanyListingBlock',
    );
  });

  it('gives every operation of both documents and every event a unique camelCase id; the public ones are pinned', () => {
    const all = [...operationsOf(publicDoc), ...operationsOf(publicDoc, 'webhooks'), ...operationsOf(adminDoc)];
    const ids = all.map(({ operation }) => operation.operationId);
    for (const [i, id] of ids.entries()) expect(id, `${all[i]?.method} ${all[i]?.path}`).toMatch(/^[a-z][a-zA-Z0-9]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationsOf(publicDoc).map(({ operation }) => operation.operationId)).toEqual(publicIds);
    expect(publicDoc.webhooks['lead.status_changed'].post.operationId).toBe('leadStatusChangedEvent');
  });
});

describe('the public document', () => {
  it('declares each tag it uses, with a description, and names servers and a contact', () => {
    const used = new Set(
      [...operationsOf(publicDoc), ...operationsOf(publicDoc, 'webhooks')].flatMap(({ operation }) => operation.tags),
    );
    expect(publicDoc.tags.map((t: any) => t.name).sort()).toEqual([...used].sort());
    for (const tag of publicDoc.tags) expect(tag.description).toBeTruthy();
    expect(adminDoc.tags.map((t: any) => t.name)).toEqual(['Admin']);
    expect(publicDoc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(publicDoc.info.contact.name).toBeTruthy();
  });

  it('says who may call each operation: in its description, in x-scopes, and never as scopes of a bearer scheme', () => {
    for (const { method, path, operation } of [...operationsOf(publicDoc), ...operationsOf(adminDoc)]) {
      const access = operation['x-access'];
      expect(operation.description, `${method} ${path}`).toContain('**Access:**');
      expect(operation['x-scopes'] ?? [], `${method} ${path}`).toEqual(access.scopes ?? []);
      for (const scope of access.scopes ?? []) expect(operation.description).toContain(`\`${scope}\``);
      for (const requirement of operation.security) for (const listed of Object.values(requirement)) expect(listed).toEqual([]);
    }
    for (const { operation } of operationsOf(publicDoc, 'webhooks')) expect(operation.security).toEqual([]);
  });

  it('keeps only the components something refers to', () => {
    for (const doc of [publicDoc, adminDoc]) {
      const { components, ...rest } = doc;
      const text = JSON.stringify(rest) + JSON.stringify(components);
      const schemes = new Set(
        [...operationsOf(doc), ...operationsOf(doc, 'webhooks')].flatMap(({ operation }) =>
          operation.security.flatMap((r: object) => Object.keys(r)),
        ),
      );
      for (const [kind, entries] of Object.entries<any>(components)) {
        for (const name of Object.keys(entries)) {
          const used = kind === 'securitySchemes' ? schemes.has(name) : text.includes(`"#/components/${kind}/${name}"`);
          expect(used, `${kind}/${name}`).toBe(true);
        }
      }
    }
    expect(publicDoc.components.schemas.Company).toBeUndefined();
    expect(publicDoc.components.securitySchemes.adminToken).toBeUndefined();
  });

  it('documents the 304 of the catalogue reads, which the API gives to a matching If-None-Match', async () => {
    const catalogue = operationsOf(publicDoc).filter(({ operation }) => operation.tags.includes('Catalogue'));
    expect(catalogue.length).toBe(8);
    for (const { path, operation } of catalogue) {
      expect(operation.responses['304'], path).toBeDefined();
      expect(operation.parameters.map((p: any) => p.name)).toContain('if-none-match');
    }
    const client = testClient(api, { host });
    const first = await client.GET('/api/v1/areas');
    const again = await client.GET('/api/v1/areas', { headers: { 'If-None-Match': first.response.headers.get('ETag') ?? '' } });
    expect(again.response.status).toBe(304);
  });
});

describe('the pages at a secret token', () => {
  it('are declared with their access, an id and their HTML answers, and left out of both documents', () => {
    const registry = api.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'all', version: '1' } });
    const pages = operationsOf(registry).filter(({ operation }) => operation['x-access']?.kind === 'page');
    expect(pages.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'get /saved-searches/{token}',
      'get /statements/{token}',
      'get /stay/{token}',
      'post /saved-searches/{token}/confirmation',
      'post /saved-searches/{token}/stop',
      'post /stay/{token}/cancellation',
      'post /stay/{token}/guests',
      'post /stay/{token}/payment',
    ]);
    const ids = [...operationsOf(publicDoc), ...operationsOf(adminDoc)].map(({ operation }) => operation.operationId);
    for (const { method, path, operation } of pages) {
      expect(publicDoc.paths[path], path).toBeUndefined();
      expect(adminDoc.paths[path], path).toBeUndefined();
      expect(operation.operationId).toMatch(/^(get|pay|cancel|confirm|stop)[A-Za-z]+Page$/);
      expect(ids).not.toContain(operation.operationId);
      expect(operation.description).toContain('**Access:** no key');
      expect(operation.security).toEqual([{}]);
      // A page's 200; an action's answers besides its 303 (why it is not open now: 409, 403, 503).
      const shown = method === 'get' ? ['200', '404'] : Object.keys(operation.responses).filter((status) => status !== '303');
      expect(shown, path).toContain('404');
      for (const status of shown) {
        expect(Object.keys(operation.responses[status].content)).toEqual(['text/html']);
      }
    }
  });
});
