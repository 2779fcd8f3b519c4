/**
 * One dump file's pieces into the collector: its text, whole (JSON, or YAML that merely starts
 * with `{`) or in chunks, goes through a dump splitter (../dump-stream), and each document and
 * List item it finds is checked and added. Items of a document are checked and projected as they
 * come, and held as records until the document's `kind` (printed after `items` by kubectl) shows
 * it is a List.
 */
import type { DumpEvent, DumpSplitter } from '../dump-stream/dump-events';
import { splitText } from '../dump-stream/dump-events';
import { JsonDumpSplitter } from '../dump-stream/json-splitter';
import { YamlDumpSplitter } from '../dump-stream/yaml-splitter';
import { isJsonFileName, isJsonText, listDocument } from '../kubectl-dump';
import { isJsonObject } from '../wire-to-record/json';
import type { PreparedObject, SnapshotCollector } from './collector';
import type { SnapshotLocation, SnapshotProblem } from './results';

/**
 * Turns one file's {@link DumpEvent}s into collector calls. Items of a document are checked as
 * they come; they are added once the document's `kind` (printed after `items` by kubectl) shows
 * it is a List, and dropped otherwise. Items without `kind` (typed lists as the API serves them)
 * wait for the list's kind.
 */
export class FileReader {
  private pending: PreparedObject[] = [];
  private pendingProblems: SnapshotProblem[] = [];
  private kindless: { item: number; value: unknown }[] = [];

  constructor(
    private readonly collector: SnapshotCollector,
    private readonly file: string,
  ) {}

  readonly onEvent = (event: DumpEvent): void => {
    const collector = this.collector;
    switch (event.type) {
      case 'error': {
        const { type: _type, ...where } = event;
        collector.problem({ file: this.file, ...where });
        return;
      }
      case 'item': {
        const location: SnapshotLocation = { file: this.file, document: event.document, item: event.item };
        if (isJsonObject(event.value) && event.value.kind === undefined) {
          this.kindless.push({ item: event.item, value: event.value });
          return;
        }
        const checked = collector.check(event.value, location, undefined, undefined, (p) => this.pendingProblems.push(p));
        // Projected now: the item waits for its List's kind as a record, not as the object.
        if (checked) this.pending.push(collector.prepare(checked));
        return;
      }
      case 'document': {
        const location: SnapshotLocation = { file: this.file, document: event.document };
        const list = event.splitItems !== null && isJsonObject(event.value) ? listDocument(event.value) : null;
        if (list !== null) {
          for (const p of this.pendingProblems) collector.problem(p);
          for (const o of this.pending) collector.commit(o);
          for (const { item, value } of this.kindless) {
            const checked = collector.check(value, { ...location, item }, list.itemKind, list.itemApiVersion, (p) => collector.problem(p));
            if (checked) collector.add(checked);
          }
        } else {
          collector.document(event.value, location);
        }
        this.pending = [];
        this.pendingProblems = [];
        this.kindless = [];
        return;
      }
    }
  };
}

export function splitterFor(json: boolean, onEvent: (event: DumpEvent) => void): DumpSplitter {
  return json ? new JsonDumpSplitter(onEvent) : new YamlDumpSplitter(onEvent, 100);
}

/** Reads one file's whole text into the collector. */
export function readText(collector: SnapshotCollector, text: string, file: string): void {
  let json = isJsonText(text, file);
  if (json && !isJsonFileName(file)) {
    // YAML text that merely starts with `{` or `[`: read as YAML (a JSON superset) unless it is JSON.
    try {
      JSON.parse(text);
    } catch {
      json = false;
    }
  }
  const splitter = splitterFor(json, new FileReader(collector, file).onEvent);
  splitText(splitter, text);
  collector.documents += splitter.documents;
}
