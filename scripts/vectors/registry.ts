import { controllerChecks } from './categories/controller';
import { proxyChecks } from './categories/proxy';
import type { VectorCheck } from './types';

/** Every vector category the runner understands (topology-semantics.md §14). */
export const vectorChecks: Readonly<Record<string, VectorCheck>> = {
  ...controllerChecks,
  ...proxyChecks,
};
