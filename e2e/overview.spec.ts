/**
 * The Overview's answers that are sentences rather than numbers: the verdict on the hint counts
 * (in sync, or who waits for the controller) and what the zone map says per zone, in words above
 * it and in its text alternative — as a reader and a screen reader get them.
 */
import { expect, test } from './fixtures';
import { OverviewPage } from './pages/overview-page';

interface ServiceRowBody {
  namespace: string;
  name: string;
  hintsExpected: boolean;
  hintsObserved: 'all' | 'some' | 'none';
}

test('the hint counts come with their verdict, and the zone map says what sets each zone apart', async ({ page, request }) => {
  const overview = new OverviewPage(page);
  await overview.goto();
  await overview.expectLive();

  // The verdict agrees with each Service's slices against its expected hints (the API's rows).
  const rows = ((await (await request.get('/api/v1/services?limit=500')).json()) as { items: ServiceRowBody[] }).items;
  const waiting = rows.filter((r) => r.hintsExpected && r.hintsObserved === 'none');
  const removing = rows.filter((r) => !r.hintsExpected && r.hintsObserved !== 'none');
  const verdict = overview.hintsVerdict;
  if (waiting.length === 0 && removing.length === 0) {
    await expect(verdict).toHaveText(/^In sync: the slices carry the hints the controller would write\.|controller would rewrite/);
  } else {
    if (waiting.length > 0) await expect(verdict).toContainText(`${waiting.length} Service${waiting.length === 1 ? ' waits' : 's wait'} for the controller to write hints`);
    if (removing.length > 0) await expect(verdict).toContainText(`${removing.length} Service${removing.length === 1 ? ' has' : 's have'} hints the controller would remove`);
  }

  // The zone map: sentences above it, and every zone's share of CPU against an even share, its
  // endpoints, what Auto donates and its cross-zone share, for sighted readers and in the text alternative.
  await expect(overview.zoneMapVerdict).toContainText(/^CPU is (even|uneven)/);
  await expect(overview.zoneMapVerdict).toContainText(/Auto donates/);
  const picture = overview.zoneMap.getByRole('img', { name: /^Zone map\./ });
  for (const zone of ['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']) {
    await expect(picture).toHaveAccessibleName(new RegExp(`${zone}: \\d+ of \\d+ nodes counted, \\d+\\.\\d % of CPU · [+−0][\\d.]* pt vs even, \\d+ ready endpoints? · \\d+\\.\\d %, Auto: [^,]+, cross-zone: `));
  }
  await expect(picture.getByText(/% of CPU · .* pt vs even/).first()).toBeVisible();

  // `/` is announced where the Services are counted.
  await expect(page.getByRole('region', { name: 'Services', exact: true })).toContainText('Press / on any page to search the Services.');
});
