/**
 * How a traffic volume is labelled wherever it is shown (the Overview's zone traffic, the Services
 * table): a short word beside the figure, with an icon and a longer title, so where a volume comes
 * from is readable without colour. No hooks: used by server and client components alike.
 */
import type { VolumeSourceKind } from '@/lib/topology/analyses/traffic-volume';
import { formatCount } from '../ui/format';
import type { Tone } from '../ui/status';
import { Badge } from '../ui/status';

/** The word beside a volume, its tone and the sentence of its title. */
export const VOLUME_SOURCE: Readonly<Record<VolumeSourceKind, { readonly short: string; readonly tone: Tone; readonly title: string }>> = {
  'measured-flows': { short: 'measured', tone: 'ok', title: 'Measured: zone-resolved flow bytes from Prometheus (volume and zone split measured)' },
  'measured-pod-bytes': { short: 'pod bytes', tone: 'ok', title: 'Measured: network bytes of the endpoint pods from Prometheus (volume measured, zone split modelled)' },
  set: { short: 'set', tone: 'info', title: 'Set for this Service (volumes file, API or UI)' },
  assumed: { short: 'assumed', tone: 'neutral', title: 'Assumed: nothing measured or set for this Service' },
};

/** A small marker of where a volume comes from (icon + word; the title says more). */
export function VolumeSourceMarker({ kind, title }: { readonly kind: VolumeSourceKind; readonly title?: string }) {
  const source = VOLUME_SOURCE[kind];
  return (
    <Badge tone={source.tone} title={title ?? source.title} className="px-1.5 py-0 text-[0.7rem]">
      {source.short}
    </Badge>
  );
}

/** A number of GB without its unit: whole from 10 up (`15,230`), one decimal below (`4.5`). */
export function formatGbValue(gb: number): string {
  if (!Number.isFinite(gb)) return '—';
  if (gb >= 10 || gb === 0) return formatCount(gb);
  return gb.toFixed(1);
}

/** GB with a unit (`15,230 GB`, `4.5 GB`). */
export function formatGb(gb: number): string {
  const value = formatGbValue(gb);
  return value === '—' ? value : `${value} GB`;
}
