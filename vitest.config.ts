import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./', import.meta.url)),
      'server-only': fileURLToPath(new URL('./lib/testing/server-only-stub.ts', import.meta.url)),
    },
  },
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'e2e/**', '.next/**', '.next-*/**', '.bench-tmp/**'],
    environment: 'node',
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker; most integration tests wait on servers
    // (the simulator, Prometheus scrapes), so two files at a time halve the wall time.
    maxWorkers: 2,
  },
});
