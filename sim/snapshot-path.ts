/**
 * `npm run sim -- --snapshot PATH`: a dump file, or a folder of them (every `.yaml`, `.yml` and
 * `.json` inside, recursively, in name order — the same files the dashboard's
 * `ZONESCOPE_SNAPSHOT=FOLDER` and `npm run analyze -- --snapshot FOLDER` read), merged into one
 * scenario. An object given in two files (same kind, namespace and name) is an error naming both;
 * two files naming different server versions too — except that `kubectl version` output (a
 * support bundle's `version.yaml`) counts only when no file has a ServerVersion or raw `/version`
 * document (sim/scenario.ts).
 */
import { stat } from 'node:fs/promises';
import { formatProblem } from '../lib/k8s/snapshot/results';
import { listSnapshotFiles } from '../lib/k8s/snapshot/load';
import type { Scenario, ScenarioLocation, ScenarioOptions, ScenarioProblem, ServerVersionSource } from './scenario';
import { formatLocation, loadScenarioFile, ScenarioError } from './scenario';
import { apiResourceForKind } from './resources';
import { storeKey } from './store';

/** How much a server version counts: a document naming it over `kubectl version` output over none. */
function rank(source: ServerVersionSource | undefined): number {
  return source === 'document' ? 2 : source === 'kubectl-version' ? 1 : 0;
}

/** Loads a scenario from a file or a folder of files. @throws ScenarioError naming every problem. */
export async function loadScenarioPath(target: string, options: ScenarioOptions = {}): Promise<Scenario> {
  const isFolder = await stat(target).then((s) => s.isDirectory(), () => false);
  if (!isFolder) return loadScenarioFile(target, options);
  const listed = await listSnapshotFiles(target);
  if (listed.errors.length > 0) throw new ScenarioError(target, listed.errors.map((p) => ({ file: p.file, document: 0, message: formatProblem(p).slice(p.file.length + 2) })));
  const problems: ScenarioProblem[] = [];
  const merged: Scenario = { objects: [], warnings: [], source: target };
  let versionFrom: string | null = null;
  const seen = new Map<string, string>();
  for (const file of listed.files) {
    let scenario: Scenario;
    try {
      scenario = await loadScenarioFile(file, options);
    } catch (error) {
      if (error instanceof ScenarioError) {
        for (const p of error.problems) problems.push(p);
        continue;
      }
      throw error;
    }
    for (const w of scenario.warnings) merged.warnings.push(w);
    if (scenario.serverVersion !== undefined) {
      const source = scenario.serverVersionSource ?? 'document';
      if (rank(source) > rank(merged.serverVersionSource)) {
        // The first of its kind, or a document naming it over `kubectl version` output.
        merged.serverVersion = scenario.serverVersion;
        merged.serverVersionSource = source;
        versionFrom = file;
      } else if (rank(source) === rank(merged.serverVersionSource) && merged.serverVersion !== scenario.serverVersion) {
        problems.push({ file, document: 0, message: `ServerVersion ${scenario.serverVersion} contradicts ${merged.serverVersion ?? ''} given in ${versionFrom ?? 'another file'}` });
      }
    }
    for (const object of scenario.objects) {
      const resource = apiResourceForKind(object.apiVersion, object.kind);
      const key = `${resource?.storage ?? object.kind}:${storeKey(resource?.namespaced ?? true, object.metadata.namespace, object.metadata.name)}`;
      const first = seen.get(key);
      if (first !== undefined) {
        const location: ScenarioLocation = { file, document: 0 };
        problems.push({ ...location, message: `${object.kind} "${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}" is given twice: in ${first} and in ${formatLocation(location)}; keep one of them` });
        continue;
      }
      seen.set(key, file);
      merged.objects.push(object);
    }
  }
  if (problems.length > 0) throw new ScenarioError(target, problems);
  return merged;
}
