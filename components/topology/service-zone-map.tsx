/**
 * A Service's endpoints on the zone map: one column per zone, one tile per endpoint, coloured and
 * marked by its zone hint (own zone, donated to another zone, no hint, not ready), with an arrow
 * from every donated endpoint to the zone whose traffic it takes. Switchable between the hints on
 * the slices now and the hints the controller is expected to write (`?map=expected`).
 */
import type { EndpointView } from '@/lib/topology/analyze-service';

const WIDTH = 1160;
const GAP = 28;
const HEADER = 64;
/** Band under the column header where donation arrows arrive. */
const LANE = 44;
const PAD = 12;
const TILE = 34;
const TILE_GAP = 8;
/** Tiles drawn per zone at most; the rest are summarised under the column. */
const MAX_TILES = 90;
/** Above this many donated endpoints, arrows are drawn per zone pair instead of per endpoint. */
const MAX_ARROWS = 12;
export const NO_ZONE = '(no zone)';

type Kind = 'own' | 'donated' | 'shared' | 'none' | 'not-ready';

interface Tile {
  readonly endpoint: EndpointView;
  readonly kind: Kind;
  readonly targets: readonly string[];
  x: number;
  y: number;
}

const STYLE: Record<Kind, { fill: string; stroke: string; dash?: string; glyph: string; label: string }> = {
  own: { fill: 'var(--map-hint-own)', stroke: 'var(--map-hint-own-stroke)', glyph: '✓', label: 'Hinted for its own zone' },
  donated: { fill: 'var(--map-hint-donated)', stroke: 'var(--map-hint-donated-stroke)', glyph: '→', label: 'Donated: hinted for another zone' },
  shared: { fill: 'var(--map-hint-donated)', stroke: 'var(--map-hint-donated-stroke)', dash: '4 2', glyph: '+', label: 'Hinted for its zone and others' },
  none: { fill: 'var(--map-hint-none)', stroke: 'var(--map-hint-none-stroke)', glyph: '', label: 'Ready, no zone hint' },
  'not-ready': { fill: 'none', stroke: 'var(--map-hint-none-stroke)', dash: '3 3', glyph: '×', label: 'Not ready (not routed to)' },
};

function classify(endpoint: EndpointView, hints: readonly string[] | null): { kind: Kind; targets: readonly string[] } {
  if (endpoint.ready === false) return { kind: 'not-ready', targets: [] };
  if (!hints || hints.length === 0) return { kind: 'none', targets: [] };
  const others = hints.filter((z) => z !== endpoint.zone);
  if (others.length === 0) return { kind: 'own', targets: [] };
  return { kind: others.length === hints.length ? 'donated' : 'shared', targets: others };
}

function shortLabel(endpoint: EndpointView): string {
  const address = endpoint.address;
  if (address.includes(':')) return address.split(':').filter(Boolean).pop()?.slice(-4) ?? address;
  const last = address.split('.').pop();
  return last ? `.${last}` : address;
}

function truncate(text: string, width: number, charWidth = 7.6): string {
  const max = Math.max(4, Math.floor(width / charWidth));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function ServiceZoneMap({ endpoints, zones, mode }: { readonly endpoints: readonly EndpointView[]; readonly zones: readonly string[]; readonly mode: 'observed' | 'expected' }) {
  const columns = [...zones];
  if (endpoints.some((e) => e.zone === null) && !columns.includes(NO_ZONE)) columns.push(NO_ZONE);
  const n = Math.max(1, columns.length);
  const colWidth = (WIDTH - GAP * (n - 1)) / n;
  const perRow = Math.max(1, Math.floor((colWidth - 2 * PAD + TILE_GAP) / (TILE + TILE_GAP)));
  const byZone = new Map<string, Tile[]>(columns.map((z) => [z, []]));
  const summaries = new Map<string, { ready: number; notReady: number; own: number; donatedOut: number; received: number; noHint: number }>(
    columns.map((z) => [z, { ready: 0, notReady: 0, own: 0, donatedOut: 0, received: 0, noHint: 0 }]),
  );
  for (const endpoint of endpoints) {
    const zone = endpoint.zone ?? NO_ZONE;
    const hints = mode === 'observed' ? endpoint.observedHints : endpoint.expectedHints;
    const { kind, targets } = classify(endpoint, hints);
    const list = byZone.get(zone);
    const summary = summaries.get(zone);
    if (!list || !summary) continue;
    list.push({ endpoint, kind, targets, x: 0, y: 0 });
    if (kind === 'not-ready') summary.notReady++;
    else summary.ready++;
    if (kind === 'own' || kind === 'shared') summary.own++;
    if (kind === 'donated' || kind === 'shared') summary.donatedOut++;
    if (kind === 'none') summary.noHint++;
    for (const target of targets) {
      const t = summaries.get(target);
      if (t) t.received++;
    }
  }
  const order: Record<Kind, number> = { donated: 0, shared: 1, own: 2, none: 3, 'not-ready': 4 };
  let maxRows = 1;
  const hiddenByZone = new Map<string, number>();
  for (const [zone, tiles] of byZone) {
    // Donations to farther zones first (leftmost): their arrows arc higher, so arcs nest instead of crossing.
    const reach = (tile: Tile) => Math.max(0, ...tile.targets.map((t) => Math.abs(columns.indexOf(t) - columns.indexOf(zone))));
    tiles.sort((a, b) => order[a.kind] - order[b.kind] || reach(b) - reach(a) || a.endpoint.address.localeCompare(b.endpoint.address));
    const shown = Math.min(tiles.length, MAX_TILES);
    hiddenByZone.set(zone, tiles.length - shown);
    tiles.length = shown;
    tiles.forEach((tile, i) => {
      tile.x = PAD + (i % perRow) * (TILE + TILE_GAP);
      tile.y = HEADER + LANE + 8 + Math.floor(i / perRow) * (TILE + TILE_GAP);
    });
    maxRows = Math.max(maxRows, Math.ceil(shown / perRow));
  }
  const anyHidden = [...hiddenByZone.values()].some((h) => h > 0);
  const height = HEADER + LANE + 8 + maxRows * (TILE + TILE_GAP) + PAD + (anyHidden ? 20 : 0);
  const colX = (zone: string) => columns.indexOf(zone) * (colWidth + GAP);
  const arrows: { key: string; target: string; hops: number; from: { x: number; y: number }; to: { x: number; y: number } }[] = [];
  for (const [zone, tiles] of byZone) {
    for (const tile of tiles) {
      for (const target of tile.targets) {
        if (!columns.includes(target)) continue;
        const fx = colX(zone) + tile.x + TILE / 2;
        const fy = tile.y;
        const tx = colX(target) + colWidth - PAD - 10 - (arrows.filter((a) => a.target === target).length % 4) * 12;
        const ty = HEADER + 24;
        arrows.push({ key: `${tile.endpoint.address}->${target}`, target, hops: Math.abs(columns.indexOf(target) - columns.indexOf(zone)), from: { x: fx, y: fy }, to: { x: tx, y: ty } });
      }
    }
  }
  const pairCounts = new Map<string, { from: string; to: string; count: number }>();
  for (const endpoint of endpoints) {
    const hints = mode === 'observed' ? endpoint.observedHints : endpoint.expectedHints;
    const { targets } = classify(endpoint, hints);
    for (const target of targets) {
      const from = endpoint.zone ?? NO_ZONE;
      if (!columns.includes(target)) continue;
      const key = `${from}->${target}`;
      const pair = pairCounts.get(key) ?? { from, to: target, count: 0 };
      pair.count++;
      pairCounts.set(key, pair);
    }
  }
  const pairs = [...pairCounts.values()];
  const totalDonated = [...summaries.values()].reduce((s, z) => s + z.donatedOut, 0);
  const label =
    `Endpoints by zone, hints ${mode === 'observed' ? 'on the slices now' : 'expected after the controller\u2019s next sync'}. ` +
    columns
      .map((z) => {
        const s = summaries.get(z);
        return s ? `${z}: ${s.ready} ready, ${s.own} hinted for own zone, ${s.donatedOut} donated out, receives ${s.received}, ${s.noHint} without hint, ${s.notReady} not ready` : z;
      })
      .join('; ') +
    '.';
  return (
    <figure className="space-y-3">
      <div className="overflow-x-auto">
        <svg viewBox={`0 0 ${WIDTH} ${height}`} className="h-auto w-full min-w-[720px]" role="img" aria-label={label}>
          <defs>
            <marker id="zs-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="var(--map-arrow)" />
            </marker>
          </defs>
          {columns.map((zone) => {
            const x = colX(zone);
            const s = summaries.get(zone);
            const hidden = hiddenByZone.get(zone) ?? 0;
            return (
              <g key={zone} transform={`translate(${x},0)`}>
                <rect width={colWidth} height={height} rx={8} fill={zone === NO_ZONE ? 'var(--map-bad)' : 'var(--map-column)'} stroke={zone === NO_ZONE ? 'var(--map-bad-stroke)' : 'var(--map-column-stroke)'} />
                <text x={PAD} y={22} fontSize={14} fontWeight={600} fill="var(--map-text)">
                  <title>{zone}</title>
                  {truncate(zone, colWidth - 2 * PAD, 8.2)}
                </text>
                <text x={PAD} y={42} fontSize={12} fill="var(--map-text)">
                  {truncate(`${s?.ready ?? 0} ready${s && s.notReady > 0 ? ` · ${s.notReady} not ready` : ''}`, colWidth - 2 * PAD, 6.8)}
                </text>
                <text x={PAD} y={58} fontSize={11} fill="var(--map-muted)">
                  {truncate(
                    s && (s.received > 0 || s.donatedOut > 0) ? `receives ${s.received} · donates ${s.donatedOut}` : s && s.own > 0 ? `${s.own} hinted for this zone` : 'no zone hints',
                    colWidth - 2 * PAD,
                    6.4,
                  )}
                </text>
                <line x1={PAD} x2={colWidth - PAD} y1={HEADER + 8} y2={HEADER + 8} stroke="var(--map-column-stroke)" />
                {s && s.received > 0 ? (
                  <g>
                    <rect x={colWidth - PAD - 170} y={HEADER + 24} width={170} height={22} rx={6} fill="none" stroke="var(--map-arrow)" strokeDasharray="4 3" />
                    <text x={colWidth - PAD - 162} y={HEADER + 39} fontSize={11} fill="var(--map-text)">
                      receives {s.received} donated
                    </text>
                  </g>
                ) : null}
                {(byZone.get(zone) ?? []).map((tile) => {
                  const style = STYLE[tile.kind];
                  const e = tile.endpoint;
                  const hintText = (mode === 'observed' ? e.observedHints : e.expectedHints)?.join(', ') ?? 'none';
                  return (
                    <g key={e.address} transform={`translate(${tile.x},${tile.y})`}>
                      <title>{`${e.address}${e.podName ? ` (${e.podName})` : ''} on ${e.nodeName ?? 'unknown node'} — ${style.label}; hints: ${hintText}${e.terminating ? '; terminating' : ''}`}</title>
                      <rect width={TILE} height={TILE} rx={5} fill={style.fill} stroke={style.stroke} strokeWidth={1.5} strokeDasharray={style.dash} />
                      <text x={TILE / 2} y={13} textAnchor="middle" fontSize={10} fontWeight={700} fill="var(--map-text)">
                        {style.glyph}
                      </text>
                      <text x={TILE / 2} y={27} textAnchor="middle" fontSize={9} fill="var(--map-text)">
                        {shortLabel(e)}
                      </text>
                    </g>
                  );
                })}
                {hidden > 0 ? (
                  <text x={PAD} y={height - 10} fontSize={11} fill="var(--map-muted)">
                    +{hidden} more endpoint(s) (counted in the table)
                  </text>
                ) : null}
              </g>
            );
          })}
          {arrows.length <= MAX_ARROWS
            ? arrows.map((a) => {
                // Farther targets arc higher (never above the column header), so an arrow does not run through a nearer zone's arrowhead.
                const lane = Math.max(HEADER, HEADER + 22 - 10 * a.hops);
                return <path key={a.key} d={`M${a.from.x},${a.from.y} C${a.from.x},${lane} ${a.to.x},${lane} ${a.to.x},${a.to.y}`} fill="none" stroke="var(--map-arrow)" strokeWidth={2} markerEnd="url(#zs-arrow)" opacity={0.9} />;
              })
            : pairs.map((pair) => {
                // Many donations: one arrow per zone pair, its count labelled at the source.
                const sameTarget = pairs.filter((p) => p.to === pair.to);
                const fx = colX(pair.from) + colWidth / 2;
                const fy = HEADER + 34;
                const tx = colX(pair.to) + colWidth - PAD - 120 + sameTarget.indexOf(pair) * 28;
                const ty = HEADER + 22;
                const lane = HEADER + 6;
                return (
                  <g key={`${pair.from}->${pair.to}`}>
                    <path d={`M${fx},${fy} C${fx},${lane} ${tx},${lane} ${tx},${ty}`} fill="none" stroke="var(--map-arrow)" strokeWidth={3} markerEnd="url(#zs-arrow)" />
                    <rect x={fx - 60} y={fy - 2} width={120} height={18} rx={9} fill="var(--map-hint-donated)" stroke="var(--map-arrow)" />
                    <text x={fx} y={fy + 11} textAnchor="middle" fontSize={11} fontWeight={600} fill="var(--map-text)">
                      {pair.count} donated →
                    </text>
                  </g>
                );
              })}
        </svg>
      </div>
      <figcaption className="space-y-2">
        <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
          {(Object.keys(STYLE) as Kind[]).map((kind) => (
            <li key={kind} className="flex items-center gap-1.5">
              <svg viewBox="0 0 18 18" className="h-4 w-4" aria-hidden="true">
                <rect x="1.5" y="1.5" width="15" height="15" rx="3" fill={STYLE[kind].fill} stroke={STYLE[kind].stroke} strokeWidth={1.5} strokeDasharray={STYLE[kind].dash} />
                <text x="9" y="12.5" textAnchor="middle" fontSize="10" fontWeight="700" fill="var(--map-text)">
                  {STYLE[kind].glyph}
                </text>
              </svg>
              {STYLE[kind].label}
            </li>
          ))}
          <li className="flex items-center gap-1.5">
            <svg viewBox="0 0 24 12" className="h-3 w-6" aria-hidden="true">
              <path d="M1,6 L19,6" stroke="var(--map-arrow)" strokeWidth="2" markerEnd="url(#zs-arrow)" />
            </svg>
            Arrow: donated endpoint → the zone whose traffic it takes
          </li>
        </ul>
        <ZoneSummaryTable columns={columns} summaries={summaries} mode={mode} totalDonated={totalDonated} />
      </figcaption>
    </figure>
  );
}

function ZoneSummaryTable({
  columns,
  summaries,
  mode,
  totalDonated,
}: {
  readonly columns: readonly string[];
  readonly summaries: ReadonlyMap<string, { ready: number; notReady: number; own: number; donatedOut: number; received: number; noHint: number }>;
  readonly mode: 'observed' | 'expected';
  readonly totalDonated: number;
}) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
          Per zone ({mode === 'observed' ? 'hints on the slices now' : 'hints expected after the next sync'}): {totalDonated} endpoint(s) donated across zones.
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1 pr-3 font-medium">Zone</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Ready</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Not ready</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Hinted own zone</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Donated out</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Received</th>
            <th scope="col" className="py-1 text-right font-medium">No hint</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((zone) => {
            const s = summaries.get(zone);
            if (!s) return null;
            return (
              <tr key={zone} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <th scope="row" className="whitespace-nowrap py-1 pr-3 text-left font-mono font-normal">{zone}</th>
                <td className={`py-1 pr-3 text-right tabular-nums ${s.ready === 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`}>{s.ready}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{s.notReady}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{s.own}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{s.donatedOut}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{s.received}</td>
                <td className="py-1 text-right tabular-nums">{s.noHint}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
