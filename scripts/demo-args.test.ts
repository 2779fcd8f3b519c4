import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from './demo-args';

describe('npm run demo: the command line', () => {
  it('free ports by default; pinned ones when asked, in both forms', () => {
    expect(parseDemoArgs([])).toEqual({ simPort: 0, prometheusPort: 0 });
    expect(parseDemoArgs(['--sim-port', '6443', '--prometheus-port=9090'])).toEqual({ simPort: 6443, prometheusPort: 9090 });
    expect(parseDemoArgs(['-h'])).toBe('help');
  });

  it.each([
    [['--sim-port'], '--sim-port needs a value'],
    [['--sim-port', 'x'], '--sim-port must be an integer from 0 to 65535, got "x"'],
    [['--prometheus-port', '70000'], '--prometheus-port must be an integer from 0 to 65535, got "70000"'],
    [['--sim-port', '1', '--sim-port', '2'], '--sim-port given twice'],
    [['--port', '3000'], 'unknown argument "--port"'],
    [['--sim-port', '7000', '--prometheus-port', '7000'], '--sim-port and --prometheus-port are both 7000: give each its own port'],
  ])('refuses %j', (argv, message) => {
    expect(parseDemoArgs(argv)).toBe(message);
  });
});
