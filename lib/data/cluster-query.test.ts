/** The what-if parameters of `GET /api/v1/cluster`: accepted values, and 400s that name the parameter and its range. */
import { describe, expect, it } from 'vitest';
import { parseClusterQuery } from './http';

async function refusal(query: string): Promise<{ status: number; code: string; message: string }> {
  const parsed = parseClusterQuery(new URLSearchParams(query));
  if (parsed.ok) throw new Error(`"${query}" was accepted`);
  const body = (await parsed.response.json()) as { error: { code: string; message: string } };
  return { status: parsed.response.status, ...body.error };
}

describe('parseClusterQuery', () => {
  it('accepts no parameters and each what-if as a plain decimal', () => {
    expect(parseClusterQuery(new URLSearchParams(''))).toEqual({ ok: true, value: {} });
    expect(parseClusterQuery(new URLSearchParams('gbPerEndpoint=120&pricePerGb=0.02'))).toEqual({ ok: true, value: { gbPerEndpoint: 120, pricePerGb: 0.02 } });
    expect(parseClusterQuery(new URLSearchParams('gbPerService=.5'))).toEqual({ ok: true, value: { gbPerService: 0.5 } });
    expect(parseClusterQuery(new URLSearchParams('pricePerGb=0&gbPerEndpoint=1000000000'))).toEqual({ ok: true, value: { pricePerGb: 0, gbPerEndpoint: 1e9 } });
  });

  it.each([
    ['pricePerGb=101', 'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "101".'],
    ['pricePerGb=-1', 'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "-1".'],
    ['gbPerEndpoint=1e3', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "1e3".'],
    ['gbPerEndpoint=NaN', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "NaN".'],
    ['gbPerEndpoint=', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "".'],
    ['gbPerService=Infinity', 'gbPerService must be a plain decimal number from 0 to 1000000000 (GB per Service per month); got "Infinity".'],
    ['gbPerService=1000000001', 'gbPerService must be a plain decimal number from 0 to 1000000000 (GB per Service per month); got "1000000001".'],
    ['gbPerMonth=10', 'Unknown query parameter "gbPerMonth"; known: gbPerEndpoint, gbPerService, pricePerGb.'],
    ['pricePerGb=0.01&pricePerGb=0.02', 'The query parameter "pricePerGb" is given more than once.'],
    ['gbPerEndpoint=10&gbPerService=10', 'Give gbPerEndpoint or gbPerService, not both: gbPerService replaces the per-endpoint assumption with a flat volume per Service.'],
  ])('refuses %s with 400 bad-request:cluster naming the parameter', async (query, message) => {
    expect(await refusal(query)).toEqual({ status: 400, code: 'bad-request:cluster', message });
  });
});
