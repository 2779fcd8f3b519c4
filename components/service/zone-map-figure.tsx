'use client';

/**
 * Draws a Service zone map laid out by `zoneMapModel` (service-zone-map.tsx): the columns, the
 * endpoint tiles or per-kind bars, the donation arrows, the legend and the per-zone table. No
 * state and no effects: a client component only so that the RSC payload carries the compact
 * model rather than the element tree.
 */
import { ZoneMapList } from './zone-map-list';
import { BAR_ROW, BAR_X, HEADER, LANE, PAD, STYLE, TILE, WIDTH } from './zone-map-style';
import type { Kind, ZoneMapColumn, ZoneMapModel } from './zone-map-style';

const LEGEND = Object.keys(STYLE) as Kind[];

function Column({ c, model }: { readonly c: ZoneMapColumn; readonly model: ZoneMapModel }) {
  const { colWidth, height } = model;
  return (
    <g transform={`translate(${c.x},0)`}>
      <rect width={colWidth} height={height} rx={8} fill={c.bad ? 'var(--map-bad)' : 'var(--map-column)'} stroke={c.bad ? 'var(--map-bad-stroke)' : 'var(--map-column-stroke)'} />
      <text x={PAD} y={22} fontSize={14} fontWeight={600} fill="var(--map-text)">
        <title>{c.zone}</title>
        {c.title}
      </text>
      <text x={PAD} y={42} fontSize={12} fill="var(--map-text)">
        {c.counts}
      </text>
      <text x={PAD} y={58} fontSize={11} fill="var(--map-muted)">
        {c.flows}
      </text>
      <line x1={PAD} x2={colWidth - PAD} y1={HEADER + 8} y2={HEADER + 8} stroke="var(--map-column-stroke)" />
      {c.received > 0 ? (
        <g>
          <rect x={colWidth - PAD - 170} y={HEADER + 24} width={170} height={22} rx={6} fill="none" stroke="var(--map-arrow)" strokeDasharray="4 3" />
          <text x={colWidth - PAD - 162} y={HEADER + 39} fontSize={11} fill="var(--map-text)">
            receives {c.received} donated
          </text>
        </g>
      ) : null}
      {c.bars.map((bar, row) => {
        const style = STYLE[bar.kind];
        return (
          <g key={bar.kind} transform={`translate(0,${HEADER + LANE + 8 + row * BAR_ROW})`} opacity={bar.count === 0 ? 0.45 : undefined}>
            <title>{bar.title}</title>
            <rect x={PAD} y={2} width={26} height={26} rx={4} fill={style.fill} stroke={style.stroke} strokeWidth={1.5} strokeDasharray={style.dash} />
            <text x={PAD + 13} y={19} textAnchor="middle" fontSize={11} fontWeight={700} fill="var(--map-text)">
              {style.glyph}
            </text>
            <text x={BAR_X} y={12} fontSize={11} fill="var(--map-text)">
              {bar.text}
            </text>
            <rect x={BAR_X} y={18} width={Math.max(10, colWidth - BAR_X - PAD)} height={8} rx={3} fill="none" stroke="var(--map-column-stroke)" />
            {bar.width > 0 ? <rect x={BAR_X} y={18} width={bar.width} height={8} rx={3} fill={bar.kind === 'not-ready' ? 'var(--map-hint-none-stroke)' : style.stroke} /> : null}
          </g>
        );
      })}
    </g>
  );
}

/** The `id` of a kind's tile shape in the figure's `<defs>` (one zone map per page). */
function tileId(kind: Kind): string {
  return `zs-tile-${kind}`;
}

export function ZoneMapFigure({ model }: { readonly model: ZoneMapModel }) {
  const { columns, height, mode } = model;
  const used = new Set(model.tiles.map((tile) => tile[3]));
  const kinds = LEGEND.filter((kind) => used.has(kind));
  return (
    <figure className="space-y-3">
      {/* Narrower than the drawing's own width (phones, tablets, small laptops) its text would shrink below 12 px: the zones are stacked as cards instead. */}
      <ZoneMapList model={model} className="xl:hidden" />
      <div className="hidden overflow-x-auto xl:block">
        <svg viewBox={`0 0 ${WIDTH} ${height}`} className="h-auto w-full" role="img" aria-label={model.label}>
          <defs>
            <marker id="zs-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="var(--map-arrow)" />
            </marker>
            {/* One tile shape per kind of endpoint, drawn by reference: the page carries each tile's position, mark, label and tooltip, not its styling. */}
            {kinds.map((kind) => (
              <rect key={kind} id={tileId(kind)} width={TILE} height={TILE} rx={5} fill={STYLE[kind].fill} stroke={STYLE[kind].stroke} strokeWidth={1.5} strokeDasharray={STYLE[kind].dash} />
            ))}
          </defs>
          {columns.map((c) => (
            <Column key={c.zone} c={c} model={model} />
          ))}
          {model.tiles.length > 0 ? (
            // The tiles' texts inherit anchor and colour from here (SVG presentation attributes are inherited).
            <g textAnchor="middle" fill="var(--map-text)">
              {model.tiles.map(([column, x, y, kind, label, title]) => {
                const glyph = STYLE[kind].glyph;
                return (
                  <g key={title} transform={`translate(${(columns[column]?.x ?? 0) + x},${y})`}>
                    <title>{title}</title>
                    <use href={`#${tileId(kind)}`} />
                    {glyph === '' ? null : (
                      <text x={TILE / 2} y={13} fontSize={10} fontWeight={700}>
                        {glyph}
                      </text>
                    )}
                    <text x={TILE / 2} y={27} fontSize={9}>
                      {label}
                    </text>
                  </g>
                );
              })}
            </g>
          ) : null}
          {model.arrows.map((a) =>
            a.count === null ? (
              <path key={a.key} d={a.d} fill="none" stroke="var(--map-arrow)" strokeWidth={2} markerEnd="url(#zs-arrow)" opacity={0.9} />
            ) : (
              // Many donations: one arrow per zone pair, its count labelled at the source.
              <g key={a.key}>
                <path d={a.d} fill="none" stroke="var(--map-arrow)" strokeWidth={3} markerEnd="url(#zs-arrow)" />
                <rect x={a.fx - 60} y={a.fy - 2} width={120} height={18} rx={9} fill="var(--map-hint-donated)" stroke="var(--map-arrow)" />
                <text x={a.fx} y={a.fy + 11} textAnchor="middle" fontSize={11} fontWeight={600} fill="var(--map-text)">
                  {a.count} donated →
                </text>
              </g>
            ),
          )}
        </svg>
      </div>
      <figcaption className="space-y-2">
        <ul className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
          {LEGEND.map((kind) => (
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
          <li className="hidden items-center gap-1.5 xl:flex">
            <svg viewBox="0 0 24 12" className="h-3 w-6" aria-hidden="true">
              <path d="M1,6 L19,6" stroke="var(--map-arrow)" strokeWidth="2" markerEnd="url(#zs-arrow)" />
            </svg>
            {model.perPair ? 'Arrow: endpoints donated from one zone → the zone whose traffic they take' : 'Arrow: donated endpoint → the zone whose traffic it takes'}
          </li>
          {model.tiled ? null : <li>Over {model.maxTileEndpoints} endpoints: one bar per kind and zone (length: count); the table below lists every endpoint.</li>}
        </ul>
        {/* The cards above carry the same numbers where they are shown. */}
        <div className="hidden overflow-x-auto xl:block">
          <table className="w-full text-sm [&_td]:py-1 [&_td]:pr-3 [&_td]:text-right [&_td]:tabular-nums [&_th]:py-1 [&_th]:pr-3 [&_thead_th]:font-medium">
            <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
              Per zone ({mode === 'observed' ? 'hints on the slices now' : 'hints expected after the next sync'}): {model.totalDonated} endpoint(s) donated across zones.
            </caption>
            <thead>
              <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
                <th scope="col">Zone</th>
                {['Ready', 'Not ready', 'Hinted own zone', 'Donated out', 'Received', 'No hint'].map((heading) => (
                  <th key={heading} scope="col" className="text-right">
                    {heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {columns.map((s) => (
                <tr key={s.zone} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                  <th scope="row" className="whitespace-nowrap text-left font-mono font-normal">
                    {s.zone}
                  </th>
                  <td className={s.ready === 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : undefined}>{s.ready}</td>
                  <td>{s.notReady}</td>
                  <td>{s.own}</td>
                  <td>{s.donatedOut}</td>
                  <td>{s.received}</td>
                  <td>{s.noHint}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </figcaption>
    </figure>
  );
}
