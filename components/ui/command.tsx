/** A shell command (or snippet) with a copy button. */
import { CopyButton } from './copy-button';

export function CommandBlock({ command, label, language = 'shell' }: { readonly command: string; readonly label?: string; readonly language?: 'shell' | 'yaml' }) {
  return (
    <div className="group flex items-start gap-2 rounded-md border border-slate-200 bg-slate-50 p-2 dark:border-slate-700 dark:bg-slate-950">
      <pre className="min-w-0 flex-1 overflow-x-auto whitespace-pre-wrap break-all text-xs leading-relaxed text-slate-900 dark:text-slate-100" aria-label={label}>
        {language === 'shell' ? <span aria-hidden="true" className="select-none text-slate-500">$ </span> : null}
        <code>{command}</code>
      </pre>
      <CopyButton text={command} label={language === 'shell' ? 'Copy' : 'Copy YAML'} />
    </div>
  );
}

/** Several commands, each copyable, plus one "copy all" when there are more than one. */
export function Commands({ commands }: { readonly commands: readonly string[] }) {
  if (commands.length === 0) return null;
  return (
    <div className="space-y-1.5">
      {commands.map((command) => (
        <CommandBlock key={command} command={command} />
      ))}
      {commands.length > 1 ? (
        <div className="flex justify-end">
          <CopyButton text={commands.join('\n')} label={`Copy all ${commands.length}`} />
        </div>
      ) : null}
    </div>
  );
}
