/**
 * The Services query's filters (read by the same schemas as the rest of the query) and how each
 * route's parser words the first problem of a query with several: the 400 a user reads.
 */
import { describe, expect, it } from 'vitest';
import { parseTableQuery, tableExportHref } from '../shared/services-table-url';
import type { Parsed } from './http';
import { parseClusterQuery, parseEndpointListQuery, parseServiceFilterParams, parseServiceQuery, parseTrafficOptions } from './requests';

async function message<T>(parsed: Parsed<T>): Promise<string> {
  if (parsed.ok) throw new Error('the query was accepted');
  return ((await parsed.response.json()) as { error: { message: string } }).error.message;
}

describe('the Services filters', () => {
  it('read the export link of the table as the table shows it', () => {
    const href = tableExportHref({ ...parseTableQuery({}, []), q: 'insufficient', ns: 'shop', reason: 'hints-off', order: 'desc' }, 'csv');
    const params = new URL(href, 'http://localhost').searchParams;
    expect(parseServiceFilterParams(params)).toEqual({ ok: true, value: { format: 'csv', reason: 'hints-off', searchReasons: true } });
    expect(parseServiceQuery(params)).toEqual({ ok: true, value: { q: 'insufficient', namespace: 'shop', sort: 'namespace', order: 'desc', offset: 0, limit: 100 } });
  });

  it.each([
    ['type=Headless', 'type must be one of ClusterIP, NodePort, LoadBalancer, ExternalName.'],
    ['mechanism=magic', 'mechanism must be one of topology-mode, legacy-annotation, trafficDistribution, none.'],
    ['searchReasons=maybe', 'searchReasons must be true, false, 1 or 0.'],
    ['format=xml', 'format must be one of csv, json.'],
    // Each filter in its turn: the bad mechanism before the repeated format.
    ['format=csv&mechanism=magic&format=json', 'mechanism must be one of topology-mode, legacy-annotation, trafficDistribution, none.'],
    ['type=&type=ClusterIP', 'The query parameter "type" is given more than once.'],
    ['hpa=sometimes', 'hpa must be one of off, off-at-min, on, none.'],
    ['measuredDiff=-5', 'measuredDiff must be a plain decimal number of percentage points from 0 to 100; got "-5".'],
    ['measuredDiff=101', 'measuredDiff must be a plain decimal number of percentage points from 0 to 100; got "101".'],
    ['measuredDiff=1e1', 'measuredDiff must be a plain decimal number of percentage points from 0 to 100; got "1e1".'],
    ['measuredDiff=10&measuredDiff=5', 'The query parameter "measuredDiff" is given more than once.'],
  ])('refuse %s', async (query, text) => {
    expect(await message(parseServiceFilterParams(new URLSearchParams(query)))).toBe(text);
  });

  it('take an empty value as not given', () => {
    expect(parseServiceFilterParams(new URLSearchParams('mechanism=&reason=&type=&hpa=&measuredDiff=&searchReasons=&format='))).toEqual({ ok: true, value: {} });
  });

  it('read the HPA and measured-difference filters and their sorts, as the table links them', () => {
    const href = tableExportHref({ ...parseTableQuery({}, []), hpa: 'off', measuredDiff: 10, sort: 'measuredDiff', order: 'desc' }, 'json');
    const params = new URL(href, 'http://localhost').searchParams;
    expect(parseServiceFilterParams(params)).toEqual({ ok: true, value: { format: 'json', hpa: 'off', measuredDiff: 10 } });
    expect(parseServiceQuery(params)).toEqual({ ok: true, value: { sort: 'measuredDiff', order: 'desc', offset: 0, limit: 100 } });
    expect(parseServiceQuery(new URLSearchParams('sort=hpa'))).toMatchObject({ ok: true, value: { sort: 'hpa' } });
    expect(parseServiceFilterParams(new URLSearchParams('measuredDiff=7.5'))).toEqual({ ok: true, value: { measuredDiff: 7.5 } });
  });
});

describe('the rest of the Services query', () => {
  it('takes an empty value as not given, except attention, where it means false', () => {
    expect(parseServiceQuery(new URLSearchParams('q=&namespace=&sort=&order=&offset=&limit=&attention='))).toEqual({ ok: true, value: { attention: false, offset: 0, limit: 100 } });
  });

  it.each([
    // Every repeated parameter before any value.
    ['namespace=Bad&sort=name&sort=cost', 'The query parameter "sort" is given more than once.'],
    ['offset=-1&limit=x', 'offset must be between 0 and 10000000.'],
    ['limit=x&order=up', 'order must be asc or desc.'],
    ['offset=1e3', 'offset must be an integer.'],
    [`q=${'x'.repeat(201)}`, 'q is longer than 200 characters.'],
  ])('refuses %s with the first problem', async (query, text) => {
    expect(await message(parseServiceQuery(new URLSearchParams(query)))).toBe(text);
  });
});

describe('the first problem of the other queries', () => {
  it('Service traffic options: the volume, then one price, then its value, then the shares', async () => {
    expect(await message(parseTrafficOptions(new URLSearchParams('gbPerMonth=x&price=aws&pricePerGb=1')))).toBe('gbPerMonth must be a number from 0 to 1000000000.');
    expect(await message(parseTrafficOptions(new URLSearchParams('price=free&pricePerGb=1')))).toBe('Give price or pricePerGb, not both: pricePerGb is the same as price=<USD>/GB x2.');
    expect(await message(parseTrafficOptions(new URLSearchParams('traffic.a=0.5&price=free')))).toMatch(/^price must be aws, gcp, azure/);
    expect(await message(parseTrafficOptions(new URLSearchParams('traffic.a=0.7&traffic.b=0.7')))).toBe('The traffic.<zone> shares add up to 1.4, more than 1.');
    expect(await message(parseTrafficOptions(new URLSearchParams('price=aws&traffic.a=1&traffic.a=0')))).toBe('The query parameter "traffic.a" is given more than once.');
  });

  it('cluster what-ifs: the price first, then each volume in its turn', async () => {
    expect(await message(parseClusterQuery(new URLSearchParams('gbPerEndpoint=1&gbPerEndpoint=2&pricePerGb=101')))).toBe(
      'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "101".',
    );
    expect(await message(parseClusterQuery(new URLSearchParams('gbPerEndpoint=x&gbPerService=1&gbPerService=2')))).toBe(
      'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "x".',
    );
    expect(await message(parseClusterQuery(new URLSearchParams('gbPerEndpoint=1&gbPerService=1&gbPerService=2')))).toBe('The query parameter "gbPerService" is given more than once.');
  });

  it('endpoint lists: the list, then whether a scenario applies, then the scenario', async () => {
    expect(await message(parseEndpointListQuery(new URLSearchParams('list=pods&scenario=later')))).toBe('list must be one of endpoints, diff, loads.');
    expect(await message(parseEndpointListQuery(new URLSearchParams('list=diff&scenario=later')))).toBe('scenario applies to list=loads only.');
    expect(await message(parseEndpointListQuery(new URLSearchParams('list=loads&scenario=later')))).toBe('scenario must be one of now, expected, ifAuto, ifNone.');
    expect(await message(parseEndpointListQuery(new URLSearchParams('list=')))).toBe('list must be one of endpoints, diff, loads.');
  });
});
