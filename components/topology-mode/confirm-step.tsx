/**
 * The toggle's confirm step: the exact annotation change, the prediction, and the guard (one merge
 * patch, only at the resourceVersion shown). A labelled group that holds the page's automatic
 * refresh while open (what is confirmed must not change under the user, lib/shared/live-refresh.ts);
 * Escape cancels, and the toggle puts the focus on "Yes" when it opens (./use-toggle.ts). Rendered
 * inside the client toggle (./toggle.tsx).
 */
import type { RefObject } from 'react';
import type { TopologyModePreview } from '@/lib/views/topology-mode/types';
import type { Mode } from './toggle-machine';
import { confirmLabel, confirmPrediction, confirmQuestion, contextNote } from './toggle-view';

export function ConfirmStep({
  mode,
  service,
  view,
  ifMatch,
  confirmRef,
  onConfirm,
  onCancel,
}: {
  readonly mode: Mode;
  /** `namespace/name`. */
  readonly service: string;
  readonly view: TopologyModePreview;
  readonly ifMatch: string;
  readonly confirmRef: RefObject<HTMLButtonElement | null>;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const change = mode === 'Auto' ? view.change.enable : view.change.disable;
  return (
    <div
      role="group"
      aria-label="Confirm the change"
      data-live-refresh-hold=""
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
      className="space-y-2 rounded-md border-2 border-sky-400 p-3 dark:border-sky-600"
    >
      <p className="text-sm font-semibold">{confirmQuestion(mode, service, view.cluster.name)}</p>
      <ul className="list-disc pl-5 font-mono text-xs">
        {Object.entries(change.set).map(([key, value]) => (
          <li key={key}>
            set {key}: {value}
          </li>
        ))}
        {change.remove.map((key) => (
          <li key={key}>remove {key}</li>
        ))}
      </ul>
      <p className="text-sm">{confirmPrediction(view.prediction, mode)}</p>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        One merge patch of this annotation in cluster {view.cluster.name}
        {contextNote(view.cluster)}, only if the Service is still at resourceVersion {ifMatch}.
      </p>
      <div className="flex gap-2">
        <button ref={confirmRef} type="button" onClick={onConfirm} className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-sky-800 dark:bg-sky-700">
          {confirmLabel(mode)}
        </button>
        <button type="button" onClick={onCancel} className="rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-500">
          Cancel
        </button>
      </div>
    </div>
  );
}
