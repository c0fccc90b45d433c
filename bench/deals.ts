/**
 * Deals for the bench of POST /api/v1/deals/{reference}/move: `count` deals of the demo company added through the
 * API (in its sales pipeline), so concurrent moves mostly move different deals. Returns their references.
 */
export async function benchDeals(origin: string, serverKey: string, count: number): Promise<string[]> {
  const references: string[] = [];
  for (let n = 0; n < count; n++) {
    const res = await fetch(`${origin}/api/v1/deals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${serverKey}` },
      body: JSON.stringify({ person: { email: `moved.${process.pid}.${n}@bench.example` }, pipeline: 'sales', value: '1000000' }),
    });
    const body = (await res.json()) as { reference?: string };
    if (res.status !== 201 || !body.reference) throw new Error(`POST /api/v1/deals answered ${res.status}`);
    references.push(body.reference);
  }
  return references;
}
