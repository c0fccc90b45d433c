import { describe, expect, it } from 'vitest';
import { developmentToken } from '../../lib/spam-check';
import type { TestApi } from '../support/harness';
import {
  enquiry,
  errorPaths,
  expectRefused,
  type FormCompany,
  formCompany,
  formsForFile,
  postForm,
  readLead,
  stored,
  type Verifier,
  setSpamCheck,
} from './support';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
formsForFile((file) => ({ api, verifier, company } = file));

/** How many times siteverify was asked since `since`. */
const asked = (since: number) => verifier.requests.length - since;

describe('the challenge', () => {
  it('is required from a browser: 400 at `challenge`, without asking siteverify', async () => {
    const calls = verifier.requests.length;
    const { challenge: _none, ...body } = enquiry(verifier);
    const res = await expectRefused(api, company.id, 400, 'invalid_request', () => postForm(api, company, body));
    expect(res.json.errors).toEqual([{ path: 'challenge', code: 'required', message: expect.any(String) }]);
    expect(asked(calls)).toBe(0);
  });

  it('refuses a token issued for another site with 403 challenge_failed', async () => {
    await expectRefused(api, company.id, 403, 'challenge_failed', () =>
      postForm(api, company, enquiry(verifier, {}, 'www.another-site.example')),
    );
  });

  it('refuses a token siteverify does not know with 403 challenge_failed', async () => {
    await expectRefused(api, company.id, 403, 'challenge_failed', () =>
      postForm(api, company, { ...enquiry(verifier), challenge: 'made-up-token' }),
    );
  });

  it('takes a token once: a second use is 403 challenge_failed', async () => {
    const body = enquiry(verifier);
    expect((await postForm(api, company, body)).status).toBe(201);
    await expectRefused(api, company.id, 403, 'challenge_failed', () =>
      postForm(api, company, { ...body, email: 'again@example.com' }),
    );
  });

  it('answers 503 spam_check_unavailable when siteverify is down, recording nothing', async () => {
    verifier.fail();
    try {
      await expectRefused(api, company.id, 503, 'spam_check_unavailable', () => postForm(api, company, enquiry(verifier)));
    } finally {
      verifier.fail(false);
    }
    expect((await postForm(api, company, enquiry(verifier))).status).toBe(201);
  });

  it('answers 503 spam_check_unavailable on a production workspace without a Turnstile secret', async () => {
    const bare = await formCompany(api, verifier, { secret: false });
    const calls = verifier.requests.length;
    await expectRefused(api, bare.id, 503, 'spam_check_unavailable', () => postForm(api, bare, enquiry(verifier)));
    expect(asked(calls)).toBe(0);
  });

  it('sends the company secret it was given through the admin API, and a removed secret stops the forms', async () => {
    const other = await formCompany(api, verifier);
    expect((await postForm(api, other, enquiry(verifier))).status).toBe(201);
    expect(verifier.requests.at(-1)?.secret).toBe(verifier.secret);
    expect((await setSpamCheck(api, other.id, null)).status).toBe(200);
    await expectRefused(api, other.id, 503, 'spam_check_unavailable', () => postForm(api, other, enquiry(verifier)));
  });
});

describe('the development token', () => {
  it('passes on a development workspace without asking siteverify', async () => {
    const dev = await formCompany(api, verifier, { environment: 'development' });
    const calls = verifier.requests.length;
    const res = await postForm(api, dev, { ...enquiry(verifier), challenge: developmentToken });
    expect(res.status, res.text).toBe(201);
    expect(asked(calls)).toBe(0);
    expect((await readLead(api, dev, res.json.reference)).status).toBe(200);
  });

  it('is sent to siteverify like any token on production, and fails there', async () => {
    const calls = verifier.requests.length;
    await expectRefused(api, company.id, 403, 'challenge_failed', () =>
      postForm(api, company, { ...enquiry(verifier), challenge: developmentToken }),
    );
    expect(verifier.requests.slice(calls).map((r) => r.response)).toEqual([developmentToken]);
  });
});

describe('the hidden website field', () => {
  it('answers a bot that filled it 201 with a reference shaped like a real one, storing nothing', async () => {
    const calls = verifier.requests.length;
    const before = await stored(api, company.id);
    const res = await postForm(api, company, enquiry(verifier, { website: 'https://spam.example' }));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json)).toEqual(['reference']);
    expect(res.json.reference).toMatch(/^L-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(await stored(api, company.id)).toEqual(before);
    expect(asked(calls)).toBe(0);
    expect((await readLead(api, company, res.json.reference)).status).toBe(404);
  });

  it('accepts it sent empty', async () => {
    const res = await postForm(api, company, enquiry(verifier, { website: '' }));
    expect(res.status, res.text).toBe(201);
    expect((await readLead(api, company, res.json.reference)).status).toBe(200);
  });
});

describe('validation before the spam check', () => {
  it("refuses a fixable mistake without spending the visitor's token", async () => {
    const calls = verifier.requests.length;
    const body = enquiry(verifier, { details: { passport_no: 'X1' } });
    const res = await expectRefused(api, company.id, 400, 'invalid_request', () => postForm(api, company, body));
    expect(errorPaths(res)).toEqual(['details.passport_no']);
    expect(asked(calls)).toBe(0);
    // Fixed, the same token still passes.
    const fixed = await postForm(api, company, { ...body, details: { note: 'fixed' } });
    expect(fixed.status, fixed.text).toBe(201);
  });
});
