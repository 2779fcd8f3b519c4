/**
 * The Service zone map for narrow screens: the zones stacked as cards, each with its counts in
 * words, where its donated endpoints go, and its endpoints as chips (or, above the tile limit, one
 * row per kind with its count and a bar). The same model as the drawn map (`zone-map-figure.tsx`),
 * in page text at the page's size: nothing is scaled down or pushed off the screen.
 */
import { BAR_X, PAD, STYLE } from './zone-map-style';
import type { Kind, ZoneMapColumn, ZoneMapModel } from './zone-map-style';

/** A chip's colours: the kind's fill and border, dashed where the map dashes it. */
function chipStyle(kind: Kind): { backgroundColor: string; borderColor: string; borderStyle: 'dashed' | 'solid' } {
  const style = STYLE[kind];
  return { backgroundColor: style.fill === 'none' ? 'transparent' : style.fill, borderColor: style.stroke, borderStyle: style.dash ? 'dashed' : 'solid' };
}

/** A zone's counts in one line: `3 ready · 1 not ready · 2 hinted for own zone · donates 1 · receives 2 · 0 without hint`. */
export function zoneCountsText(c: Pick<ZoneMapColumn, 'ready' | 'notReady' | 'own' | 'donatedOut' | 'received' | 'noHint'>): string {
  const parts = [`${c.ready} ready`];
  if (c.notReady > 0) parts.push(`${c.notReady} not ready`);
  parts.push(`${c.own} hinted for own zone`);
  if (c.donatedOut > 0) parts.push(`donates ${c.donatedOut}`);
  if (c.received > 0) parts.push(`receives ${c.received}`);
  if (c.noHint > 0) parts.push(`${c.noHint} without hint`);
  return parts.join(' · ');
}

function ZoneCard({ c, index, model }: { readonly c: ZoneMapColumn; readonly index: number; readonly model: ZoneMapModel }) {
  const tiles = model.tiles.filter((tile) => tile[0] === index);
  const track = Math.max(10, model.colWidth - BAR_X - PAD);
  return (
    <li className={`space-y-2 rounded-md border p-3 ${c.bad ? 'border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950/50' : 'border-slate-200 dark:border-slate-700'}`} data-zone={c.zone}>
      <p className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="font-mono text-sm font-semibold [overflow-wrap:anywhere]">{c.zone}</span>
        <span className="text-xs text-slate-700 dark:text-slate-300">{zoneCountsText(c)}</span>
      </p>
      {c.donations !== '' ? <p className="text-xs text-slate-700 dark:text-slate-300">Donated to other zones: {c.donations}</p> : null}
      {tiles.length > 0 ? (
        <ul className="flex flex-wrap gap-1.5" aria-label={`Endpoints in ${c.zone}`}>
          {tiles.map(([, , , kind, label, title]) => (
            <li key={title} title={title} className="inline-flex items-center gap-1 rounded border-[1.5px] px-1.5 py-0.5 font-mono text-xs text-[color:var(--map-text)]" style={chipStyle(kind)}>
              <span aria-hidden="true">
                {STYLE[kind].glyph === '' ? null : <span className="font-bold">{STYLE[kind].glyph} </span>}
                {label}
              </span>
              <span className="sr-only">{title}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {c.bars.length > 0 ? (
        <ul className="space-y-1.5" aria-label={`Endpoints in ${c.zone}, by kind`}>
          {c.bars.map((bar) => (
            <li key={bar.kind} title={bar.title} className={`flex items-center gap-2 text-xs ${bar.count === 0 ? 'opacity-70' : ''}`}>
              <span aria-hidden="true" className="inline-flex h-5 w-5 shrink-0 items-center justify-center rounded border-[1.5px] font-bold text-[color:var(--map-text)]" style={chipStyle(bar.kind)}>
                {STYLE[bar.kind].glyph}
              </span>
              <span className="w-40 shrink-0">
                {bar.count} {STYLE[bar.kind].counted}
              </span>
              <span aria-hidden="true" className="h-2 min-w-0 flex-1 rounded border border-slate-300 dark:border-slate-600">
                <span className="block h-full rounded-sm" style={{ width: `${Math.min(100, (bar.width / track) * 100)}%`, backgroundColor: bar.kind === 'not-ready' ? 'var(--map-hint-none-stroke)' : STYLE[bar.kind].stroke }} />
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function ZoneMapList({ model, className }: { readonly model: ZoneMapModel; readonly className?: string }) {
  return (
    <ul className={`space-y-2 ${className ?? ''}`} aria-label={`Endpoints by zone, hints ${model.mode === 'observed' ? 'on the slices now' : 'expected after the next sync'}`} data-testid="zone-map-list">
      {model.columns.map((c, index) => (
        <ZoneCard key={c.zone} c={c} index={index} model={model} />
      ))}
    </ul>
  );
}
