'use client';

/**
 * "Send N requests from a client in zone X": pick a client zone or node, the number of requests
 * and the scenario; the panel shows which pods would answer — kube-proxy's selection on that node,
 * a seeded sample (bars) with the exact expected counts beside it, the same in a table — the
 * commands that run the check for real, and the measured split of that zone when flows are
 * measured. The first answer comes with the page; every change asks
 * `GET /api/v1/services/{namespace}/{name}/request-sample` (the server holds the endpoint lists,
 * so the page stays small for large Services). The node picker's list of a zone comes with that
 * zone's sample (`zoneNodes`), and its options are drawn in the browser only: the server-rendered
 * page carries the picked option, not a hundred node names.
 */
import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from '../layout/cluster-base';
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import type { RequestSampleView } from '@/lib/views/service/request-sample';
import type { TrafficScenario } from '@/lib/topology/analyses/traffic-scenarios';
import { CommandBlock } from '../ui/command';
import { formatCount, formatPercent } from '../ui/format';
import { RequestSampleChart } from './request-sample-chart';
import type { SampleBar } from './request-sample-chart';
import type { RequestSamplePickerOptions } from './request-sample-options';

const MIN = 1;
const MAX = 10_000;
/** Wait this long after the last keystroke in the count before asking the server. */
const TYPING_DELAY_MS = 300;

const INPUT = 'h-9 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';
const LABEL = 'flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300';

interface Choice {
  readonly zone: string;
  /** `''` = the zone's representative node. */
  readonly node: string;
  readonly count: number;
  readonly scenario: TrafficScenario;
}

const noSubscription = () => () => {};
/** `false` on the server and while hydrating, `true` once the panel runs in the browser. */
function useInBrowser(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * Cell styles of the answers table, set once on the table for every body row (the same classes
 * on each of 50 rows were most of the panel's HTML).
 */
const SAMPLE_TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_tbody_th]:py-1 [&_tbody_th]:pr-2 [&_tbody_th]:text-left [&_tbody_th]:font-normal [&_tbody_td]:py-1 [&_tbody_td]:text-right [&_tbody_td]:tabular-nums [&_tbody_td:first-of-type]:pr-2 [&_tbody_th>span]:block [&_tbody_th>span]:font-mono [&_tbody_th>span:first-child]:break-all [&_tbody_th>span+span]:text-slate-600 dark:[&_tbody_th>span+span]:text-slate-400';

function parseCount(text: string): number | null {
  if (!/^\d{1,5}$/.test(text.trim())) return null;
  const n = Number(text);
  return n >= MIN && n <= MAX ? n : null;
}

function sampleUrl(namespace: string, name: string, choice: Choice): string {
  const q = new URLSearchParams({ zone: choice.zone, count: String(choice.count), scenario: choice.scenario });
  if (choice.node !== '') q.set('node', choice.node);
  return `/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/request-sample?${q.toString()}`;
}

/** An expected count: whole numbers as counts (`3,334`), others with two decimals (`3,333.33`). */
function expectedText(value: number): string {
  if (Number.isInteger(value)) return formatCount(value);
  const [whole = '0', fraction = '00'] = value.toFixed(2).split('.');
  return `${formatCount(Number(whole))}.${fraction}`;
}

/** One step of the check: what it does, and the command (wrapped to its box, with Copy). */
function Command({ label, text }: { readonly label: string; readonly text: string }) {
  return (
    <div className="space-y-1">
      <p className="text-xs text-slate-600 dark:text-slate-400">{label}</p>
      <CommandBlock command={text} label={label} />
    </div>
  );
}

function Result({ view, scenarioLabel }: { readonly view: RequestSampleView; readonly scenarioLabel: string }) {
  const { sample } = view;
  const bars: SampleBar[] = sample.pods.map((p) => ({ label: p.hostname, sampled: p.sampled, expected: p.expected, sameZone: p.sameZone }));
  if (sample.others) bars.push({ label: `${sample.others.pods} other pods`, sampled: sample.others.sampled, expected: sample.others.expected, sameZone: false });
  const same = sample.byZone.filter((z) => z.sameZone).reduce((s, z) => s + z.sampled, 0);
  const answered = sample.count - sample.dropped;
  const summary =
    sample.dropped > 0
      ? `All ${sample.count} requests from node ${view.node} fail: kube-proxy selects no endpoint there.`
      : `${sample.count} requests from node ${view.node} (zone ${view.zone}), ${scenarioLabel}: answered by ${sample.selection.selectedEndpoints} pod${sample.selection.selectedEndpoints === 1 ? '' : 's'}; ${same} of ${answered} from the client's zone, ${answered - same} from other zones (expected ${formatPercent(sample.expectedCrossZoneFraction)} cross-zone).`;
  return (
    <div className="space-y-3">
      <div className="text-sm" aria-live="polite" data-testid="sample-summary">
        <p className="font-semibold" data-testid="sample-selection">{sample.selection.summary}</p>
        <p className="text-slate-700 dark:text-slate-300">{sample.selection.message}</p>
        <p className="mt-1">{summary}</p>
      </div>
      {bars.length > 0 ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <RequestSampleChart bars={bars} summary={summary} />
          <div className="max-h-96 overflow-auto" tabIndex={0} aria-label="Answers per pod">
            <table className={SAMPLE_TABLE} data-testid="sample-table">
              <caption className="sr-only">Answers per pod: sampled and expected</caption>
              <thead className="sticky top-0 bg-white dark:bg-slate-900">
                <tr className="text-left uppercase tracking-wide text-slate-600 dark:text-slate-400">
                  <th scope="col" className="py-1 pr-2 font-medium">Pod (hostname) and zone</th>
                  <th scope="col" className="py-1 pr-2 text-right font-medium">Answers</th>
                  <th scope="col" className="py-1 text-right font-medium">Expected</th>
                </tr>
              </thead>
              <tbody>
                {sample.pods.map((p) => (
                  <tr key={p.endpoint} data-same-zone={p.sameZone ? 'true' : 'false'}>
                    <th scope="row" title={`${p.endpoint}${p.nodeName ? ` on ${p.nodeName}` : ''}`}>
                      <span>{p.hostname}</span>
                      <span>
                        {p.zone}
                        {p.sameZone ? <span className="sr-only"> (same zone)</span> : <span className="text-amber-800 dark:text-amber-300"> (other zone)</span>}
                      </span>
                    </th>
                    <td data-testid="sample-count">{formatCount(p.sampled)}</td>
                    <td>{expectedText(p.expected)}</td>
                  </tr>
                ))}
                {sample.others ? (
                  <tr>
                    <th scope="row">{sample.others.pods} other pods (not listed)</th>
                    <td data-testid="sample-count">{formatCount(sample.others.sampled)}</td>
                    <td>{expectedText(sample.others.expected)}</td>
                  </tr>
                ) : null}
              </tbody>
              <tfoot>
                <tr className="border-t border-slate-300 font-semibold dark:border-slate-600">
                  <th scope="row" className="py-1 pr-2 text-left">Total</th>
                  <td className="py-1 pr-2 text-right tabular-nums" data-testid="sample-total">{formatCount(answered)}</td>
                  <td className="py-1 text-right tabular-nums">{formatCount(answered)}</td>
                </tr>
              </tfoot>
            </table>
            {sample.byZone.length > 1 ? (
              <p className="mt-2 text-xs text-slate-700 dark:text-slate-300">
                By zone:{' '}
                {sample.byZone.map((z, i) => (
                  <span key={z.zone}>
                    {i > 0 ? '; ' : ''}
                    <span className="font-mono">{z.zone}</span> {z.sampled} (expected {expectedText(z.expected)}, {z.pods} pod{z.pods === 1 ? '' : 's'}
                    {z.sameZone ? ', same zone' : ''})
                  </span>
                ))}
              </p>
            ) : null}
          </div>
        </div>
      ) : null}
      {view.measured ? (
        <div className="rounded-md border border-slate-200 p-2 text-sm dark:border-slate-700" data-testid="sample-measured">
          <p>
            <span className="font-semibold">Measured from zone {view.zone}</span>{' '}
            <span className="text-xs text-slate-600 dark:text-slate-400">
              ({view.measured.metric}
              {view.measured.window ? `, rate over ${view.measured.window}` : ''}; bytes, not requests)
            </span>
            :{' '}
            {view.measured.byZone.map((z, i) => (
              <span key={z.zone}>
                {i > 0 ? ', ' : ''}→ <span className="font-mono">{z.zone}</span> {formatPercent(z.share)}
                {z.sameZone ? ' (same zone)' : ''}
              </span>
            ))}
            .
          </p>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Against the sample: {formatPercent(sample.expectedCrossZoneFraction)} expected cross-zone from this node;{' '}
            {formatPercent(view.measured.byZone.filter((z) => !z.sameZone).reduce((s, z) => s + z.share, 0))} measured from the zone.
          </p>
        </div>
      ) : null}
      <div className="space-y-2">
        <h3 className="text-sm font-semibold">Try it on the cluster</h3>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {view.sameOnEveryNodeOfZone && !view.nodePicked
            ? `The pod may run on any client node of ${view.zone} (they all select alike).`
            : `The selection depends on the node here, so the pod is pinned to ${view.node}.`}{' '}
          The loop assumes the pods answer <span className="font-mono">/hostname</span> with their name (as agnhost netexec does); use your app&apos;s equivalent. kube-proxy balances per
          connection, and each curl opens a new one.
        </p>
        <Command label="1. Start a client pod there" text={view.commands.run} />
        <Command label={`2. Send ${view.count} requests and count who answers`} text={view.commands.loop} />
        <Command label="3. Clean up" text={view.commands.cleanup} />
      </div>
    </div>
  );
}

export function RequestSamplePanel({
  namespace,
  name,
  version,
  options,
  initial,
  scenarios,
}: {
  readonly namespace: string;
  readonly name: string;
  /** The page data's version (`ServiceView.version`): when it changes, the sample shown is asked for again. */
  readonly version: number;
  /** The client zones (their node lists come with each zone's sample). */
  readonly options: RequestSamplePickerOptions;
  readonly initial: RequestSampleView;
  readonly scenarios: readonly { readonly id: TrafficScenario; readonly label: string }[];
}) {
  const ids = useId();
  const [zone, setZone] = useState(initial.zone);
  const [node, setNode] = useState(initial.nodePicked ? initial.node : '');
  const [countText, setCountText] = useState(String(initial.count));
  const [scenario, setScenario] = useState<TrafficScenario>(initial.scenario);
  const [view, setView] = useState<RequestSampleView>(initial);
  // The node list of every zone a sample was shown for (the zone's list arrives with its sample).
  const [zoneNodes, setZoneNodes] = useState<Readonly<Record<string, readonly string[]>>>(() => ({ [initial.zone]: initial.zoneNodes }));
  const inBrowser = useInBrowser();
  const [state, setState] = useState<{ readonly status: 'idle' | 'loading' } | { readonly status: 'error'; readonly message: string }>({ status: 'idle' });
  const count = parseCount(countText);
  const inFlight = useRef<AbortController | null>(null);
  const base = useClusterBase();
  // What is shown: the sample's URL at a data version (newer page data asks again, keeping the choice).
  const shown = useRef<string>(`${version} ${sampleUrl(namespace, name, { zone: initial.zone, node: initial.nodePicked ? initial.node : '', count: initial.count, scenario: initial.scenario })}`);

  useEffect(() => {
    if (count === null) return;
    const url = sampleUrl(namespace, name, { zone, node, count, scenario });
    const key = `${version} ${url}`;
    if (key === shown.current) return;
    const timer = window.setTimeout(() => {
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      setState({ status: 'loading' });
      void (async () => {
        try {
          // In the page's cluster (`/c/{id}/api/v1/…` off the default).
          const response = await fetch(withClusterBase(base, url), { cache: 'no-store', headers: { Accept: 'application/json' }, signal: controller.signal });
          const body = (await response.json().catch(() => ({}))) as Partial<RequestSampleView> & { error?: { message?: string } };
          if (controller.signal.aborted) return;
          if (!response.ok || body.sample === undefined) throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
          shown.current = key;
          const next = body as RequestSampleView;
          setView(next);
          setZoneNodes((known) => ({ ...known, [next.zone]: next.zoneNodes }));
          setState({ status: 'idle' });
        } catch (error) {
          if (controller.signal.aborted) return;
          setState({ status: 'error', message: error instanceof Error ? error.message : 'The sample could not be loaded.' });
        }
      })();
    }, TYPING_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [base, namespace, name, version, zone, node, count, scenario]);

  useEffect(() => () => inFlight.current?.abort(), []);

  const zoneOption = options.zones.find((z) => z.zone === zone) ?? options.zones[0];
  const scenarioLabel = (scenarios.find((s) => s.id === view.scenario)?.label ?? view.scenario).toLowerCase();
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end gap-3">
        <label className={LABEL}>
          Client zone
          <select
            className={INPUT}
            value={zone}
            onChange={(e) => {
              setZone(e.target.value);
              setNode('');
            }}
          >
            {options.zones.map((z) => (
              <option key={z.zone} value={z.zone}>
                {z.zone}
              </option>
            ))}
          </select>
        </label>
        <label className={LABEL}>
          Client node
          <select className={`${INPUT} max-w-[18rem]`} value={node} onChange={(e) => setNode(e.target.value)} aria-describedby={`${ids}-node-note`}>
            <option value="">any node in the zone ({zoneOption?.representative})</option>
            {/* The zone's nodes once it has been sampled, and only in the browser: the server's HTML carries the picked option alone. */}
            {(inBrowser ? (zoneNodes[zone] ?? []) : []).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
            {inBrowser || node === '' ? null : <option value={node}>{node}</option>}
          </select>
        </label>
        <label className={LABEL}>
          Requests ({MIN}–{formatCount(MAX)})
          <input
            type="number"
            min={MIN}
            max={MAX}
            step={1}
            inputMode="numeric"
            value={countText}
            onChange={(e) => setCountText(e.target.value)}
            aria-invalid={count === null}
            aria-describedby={count === null ? `${ids}-count-error` : undefined}
            className={`${INPUT} w-28`}
          />
        </label>
      </div>
      <p id={`${ids}-node-note`} className="text-xs text-slate-600 dark:text-slate-400">
        {zoneOption && zoneOption.totalNodes > zoneOption.listedNodes
          ? `${zoneOption.listedNodes} of the zone's ${zoneOption.totalNodes} client nodes listed${options.nodeMatters ? ' (nodes that host endpoints first)' : ''}; every other node selects like the zone's.`
          : options.nodeMatters
            ? "Nodes that host this Service's endpoints are listed first: they may select differently from the rest of their zone."
            : 'Every client node of a zone selects the same endpoints for this Service.'}
      </p>
      {count === null ? (
        <p id={`${ids}-count-error`} role="alert" className="text-sm text-red-800 dark:text-red-300">
          Enter a whole number of requests from {MIN} to {formatCount(MAX)}.
        </p>
      ) : null}
      <fieldset>
        <legend className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">Scenario</legend>
        <div className="flex flex-wrap gap-2">
          {scenarios.map((s) => (
            <label
              key={s.id}
              className={`cursor-pointer rounded-md border px-3 py-1.5 text-sm has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-600 ${
                scenario === s.id ? 'border-slate-900 bg-slate-900 font-semibold text-white dark:border-slate-100 dark:bg-slate-100 dark:text-slate-900' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800'
              }`}
            >
              <input type="radio" name={`${ids}-scenario`} value={s.id} checked={scenario === s.id} onChange={() => setScenario(s.id)} className="sr-only" />
              {s.label}
            </label>
          ))}
        </div>
      </fieldset>
      <p role="status" className="min-h-[1.25rem] text-xs text-slate-600 dark:text-slate-400">
        {state.status === 'loading' ? 'Sampling…' : ''}
      </p>
      {state.status === 'error' ? (
        <p role="alert" className="text-sm text-red-800 dark:text-red-300">
          {state.message}
        </p>
      ) : null}
      <div className={state.status === 'loading' ? 'opacity-60' : ''}>
        <Result view={view} scenarioLabel={scenarioLabel} />
      </div>
    </div>
  );
}
