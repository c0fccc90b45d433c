import { createHmac } from 'node:crypto';
import type { BenchImports } from './calendar-imports';
import type { Scenario } from './shared';

/**
 * Writes that come from outside a company's own code (issue 39): an inbound WhatsApp lead, signed as Meta signs it,
 * and a calendar import's sync of a feed the bench serves (bench/calendar-imports.ts), each against its own baseline.
 */

let senders = 0;

/** The app secret of the bench company's WhatsApp channel (bench/server.ts makes the channel with it). */
export const whatsAppSecret = 'b3e5c1d27a9f4e60b8d2c4a1f0e7d9c3';

/**
 * An inbound WhatsApp message from a new sender each time (a new lead), as Meta's `messages` webhook sends a text
 * message, signed as Meta signs it (`X-Hub-Signature-256`: the hex HMAC-SHA256 of the raw body with the app secret).
 */
function whatsAppMessage(path: string): () => { path: string; body: string; headers: Record<string, string> } {
  return () => {
    const n = senders++;
    const from = `9715${String(process.pid % 10)}${String(n).padStart(7, '0')}`;
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '97145550100', phone_number_id: '106540352242922' },
                contacts: [{ profile: { name: `Bench Sender ${n}` }, wa_id: from }],
                messages: [
                  {
                    from,
                    id: `wamid.bench${process.pid}x${n}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: 'Is the 2-bedroom in Marina still available?' },
                  },
                ],
              },
              field: 'messages',
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', whatsAppSecret).update(body, 'utf8').digest('hex')}`;
    return { path, body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature } };
  };
}

/** An inbound WhatsApp message (Meta's webhook), each from a new sender: a new lead each time. */
export function inboundWhatsApp(path: string): Scenario {
  const message = whatsAppMessage(path);
  // The check's request: its body and the signature of that body.
  const first = message();
  return {
    name: 'inbound WhatsApp lead',
    method: 'POST',
    path,
    headers: first.headers,
    body: () => first.body,
    request: message,
    expectedStatus: 200,
    own: true,
    stores: 'leads',
  };
}

/** A calendar import's sync through the admin API: each request another home's feed, its 50 events moved a day. */
export function calendarSync(adminToken: string, imports: BenchImports): Scenario {
  return {
    name: 'calendar import sync of 50 events',
    method: 'POST',
    path: imports.nextSync(),
    request: () => ({ path: imports.nextSync(), body: '' }),
    headers: { Authorization: `Bearer ${adminToken}` },
    expectedStatus: 200,
    own: true,
    // Fewer connections than homes: two syncs of one home at once wait on its calendar lock.
    maxConnections: 8,
  };
}
