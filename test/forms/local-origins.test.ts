import { describe, expect, it } from 'vitest';
import type { TestApi } from '../support/harness';
import {
  enquiry,
  expectProblem,
  expectRefused,
  type FormCompany,
  formCompany,
  formsForFile,
  postForm,
  site,
  type Verifier,
} from './support';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
formsForFile((file) => ({ api, verifier, company } = file));

// Other spellings of this machine and of private networks (issue 9), each an exact origin a key can list.
const spellings = [
  'http://localhost.:3000',
  'http://app.localhost.',
  'http://0.0.0.0:3000',
  'http://[::]:3000',
  'http://[::1]:3000',
  'http://[::ffff:7f00:1]',
  'http://10.0.0.5',
  'http://172.20.1.1:8080',
  'http://192.168.1.10',
  'http://169.254.169.254',
  'http://[fd00::1]',
  'http://[fe80::1]',
];

describe('origins on this machine or in a private network, in any spelling', () => {
  it.each(spellings)('%s cannot be put on a key of a production workspace (400 local_origin)', async (origin) => {
    const res = await api.admin(`/companies/${company.id}/keys`, { body: { kind: 'publishable', origins: [site, origin] } });
    expectProblem(res, 400, 'invalid_request');
    expect(res.json.errors).toEqual([{ path: 'origins', code: 'local_origin', message: expect.any(String) }]);
  });

  it('are all accepted on a key of a development workspace, as are public addresses on production', async () => {
    const dev = await api.demoCompany({}, { environment: 'development' });
    const local = await api.admin(`/companies/${dev.id}/keys`, { body: { kind: 'publishable', origins: spellings } });
    expect(local.status, local.text).toBe(201);
    const open = ['http://172.32.0.1', 'http://[2606:4700::1111]', 'https://www.example.org'];
    const pub = await api.admin(`/companies/${company.id}/keys`, { body: { kind: 'publishable', origins: open } });
    expect(pub.status, pub.text).toBe(201);
  });

  it('are refused (403 origin_not_allowed, no CORS grant) once the workspace is production, though listed', async () => {
    const dev = await formCompany(api, verifier, { environment: 'development', origins: [...spellings, site] });
    await api.db.updateTable('companies').set({ environment: 'production' }).where('id', '=', dev.id).execute();
    for (const origin of spellings) {
      const res = await expectRefused(api, dev.id, 403, 'origin_not_allowed', () =>
        postForm(api, dev, enquiry(verifier), { origin }),
      );
      expect(res.headers.get('Access-Control-Allow-Origin'), origin).toBeNull();
    }
    expect((await postForm(api, dev, enquiry(verifier))).status).toBe(201);
  });
});
