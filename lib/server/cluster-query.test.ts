/** The what-if parameters of `GET /api/v1/cluster`: accepted values, and 400s that name the parameter and its range. */
import { describe, expect, it } from 'vitest';
import { parseClusterQuery } from './requests';

async function refusal(query: string): Promise<{ status: number; code: string; message: string }> {
  const parsed = parseClusterQuery(new URLSearchParams(query));
  if (parsed.ok) throw new Error(`"${query}" was accepted`);
  const body = (await parsed.response.json()) as { error: { code: string; message: string } };
  return { status: parsed.response.status, ...body.error };
}

describe('parseClusterQuery', () => {
  it('accepts no parameters and each what-if as a plain decimal', () => {
    expect(parseClusterQuery(new URLSearchParams(''))).toEqual({ ok: true, value: {} });
    const aws = (pricePerUnit: number) => ({ kind: 'custom', pricePerUnit, unit: 'GB', directions: 2 });
    expect(parseClusterQuery(new URLSearchParams('gbPerEndpoint=120&pricePerGb=0.02'))).toEqual({ ok: true, value: { gbPerEndpoint: 120, priceSetting: aws(0.02) } });
    expect(parseClusterQuery(new URLSearchParams('gbPerService=.5'))).toEqual({ ok: true, value: { gbPerService: 0.5 } });
    expect(parseClusterQuery(new URLSearchParams('pricePerGb=0&gbPerEndpoint=1000000000'))).toEqual({ ok: true, value: { priceSetting: aws(0), gbPerEndpoint: 1e9 } });
    expect(parseClusterQuery(new URLSearchParams('price=gcp'))).toEqual({ ok: true, value: { priceSetting: { kind: 'cloud', cloud: 'gcp' } } });
    expect(parseClusterQuery(new URLSearchParams('price=0.01%2FGiB%20x1'))).toEqual({ ok: true, value: { priceSetting: { kind: 'custom', pricePerUnit: 0.01, unit: 'GiB', directions: 1 } } });
  });

  it.each([
    ['pricePerGb=101', 'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "101".'],
    ['pricePerGb=-1', 'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "-1".'],
    ['gbPerEndpoint=1e3', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "1e3".'],
    ['gbPerEndpoint=NaN', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "NaN".'],
    ['gbPerEndpoint=', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "".'],
    ['gbPerService=Infinity', 'gbPerService must be a plain decimal number from 0 to 1000000000 (GB per Service per month); got "Infinity".'],
    ['gbPerService=1000000001', 'gbPerService must be a plain decimal number from 0 to 1000000000 (GB per Service per month); got "1000000001".'],
    ['gbPerMonth=10', 'Unknown query parameter "gbPerMonth"; known: gbPerEndpoint, gbPerService, price, pricePerGb.'],
    ['price=gcp&pricePerGb=0.01', 'Give price or pricePerGb, not both: pricePerGb is the same as price=<USD>/GB x2.'],
    ['price=free', 'price must be aws, gcp, azure, or a price such as "0.01/GB x2" (USD per GB or GiB, charged 0, 1 or 2 times per cross-zone transfer; at most 100), not "free".'],
    ['pricePerGb=0.01&pricePerGb=0.02', 'The query parameter "pricePerGb" is given more than once.'],
    ['gbPerEndpoint=10&gbPerService=10', 'Give gbPerEndpoint or gbPerService, not both: gbPerService replaces the per-endpoint assumption with a flat volume per Service.'],
  ])('refuses %s with 400 bad-request:cluster naming the parameter', async (query, message) => {
    expect(await refusal(query)).toEqual({ status: 400, code: 'bad-request:cluster', message });
  });
});
