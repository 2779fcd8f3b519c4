/**
 * The flow series of a measurement, kept column by column: a number per label value (from one
 * table of the distinct values) and the rate as a double. A measurement is kept from one refresh
 * to the next (every change of a Service's pods maps it again), and with Beyla's zone labels a
 * 5,000-node cluster answers ~225,000 series: as objects (nine fields and a boxed number each) the
 * heap held 70 MB more than these columns (~6 MB) on the realistic-L answer, label values shared in
 * both. Label values repeat (a few hundred namespaces, a few thousand owners, a handful of zones),
 * so the table of values stays small.
 */
import type { FlowSeries, FlowSeriesList } from './measured-traffic';

/** The labels of a {@link FlowSeries}, in column order. */
const LABELS = ['srcZone', 'dstZone', 'srcNamespace', 'srcOwner', 'srcOwnerType', 'dstNamespace', 'dstOwner', 'dstOwnerType', 'direction'] as const;

type Label = (typeof LABELS)[number];

const COLUMNS = LABELS.length;

/** Rows the columns are first sized for; they double as rows are added. */
const FIRST_CAPACITY = 1024;

/**
 * Flow series added one at a time (as a Prometheus answer is read) and read back in the same
 * order, each as a fresh {@link FlowSeries} (an absent optional label reads as `''`, which the
 * mapping treats alike).
 */
export class FlowSeriesTable implements FlowSeriesList {
  private readonly values: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Label value numbers, {@link COLUMNS} per row; 16-bit until a value's number needs more. */
  private labels: Uint16Array | Uint32Array = new Uint16Array(FIRST_CAPACITY * COLUMNS);
  private rates = new Float64Array(FIRST_CAPACITY);
  private rows = 0;

  get length(): number {
    return this.rows;
  }

  /** Adds a series; `label(name)` gives each label's value (`''` when absent). */
  add(label: (name: Label) => string, bytesPerSecond: number): void {
    if (this.rows === this.rates.length) this.grow(this.rows * 2);
    const at = this.rows * COLUMNS;
    for (let column = 0; column < COLUMNS; column++) this.setLabel(at + column, this.numberOf(label(LABELS[column] as Label)));
    this.rates[this.rows] = bytesPerSecond;
    this.rows++;
  }

  /** Drops the spare room the doubling left (once the answer is read). */
  trim(): this {
    if (this.rows < this.rates.length) this.grow(this.rows);
    return this;
  }

  *[Symbol.iterator](): IterableIterator<FlowSeries> {
    for (let row = 0; row < this.rows; row++) yield this.at(row);
  }

  /** Series `row` (0-based, in the order added). */
  at(row: number): FlowSeries {
    const at = row * COLUMNS;
    const labels = this.labels;
    const values = this.values;
    return {
      srcZone: values[labels[at] as number] as string,
      dstZone: values[labels[at + 1] as number] as string,
      srcNamespace: values[labels[at + 2] as number] as string,
      srcOwner: values[labels[at + 3] as number] as string,
      srcOwnerType: values[labels[at + 4] as number] as string,
      dstNamespace: values[labels[at + 5] as number] as string,
      dstOwner: values[labels[at + 6] as number] as string,
      dstOwnerType: values[labels[at + 7] as number] as string,
      direction: values[labels[at + 8] as number] as string,
      bytesPerSecond: this.rates[row] as number,
    };
  }

  private numberOf(value: string): number {
    let number = this.numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.values.push(value);
      this.numbers.set(value, number);
    }
    return number;
  }

  private setLabel(at: number, number: number): void {
    if (number > 0xffff && this.labels instanceof Uint16Array) {
      const wider = new Uint32Array(this.labels.length);
      wider.set(this.labels);
      this.labels = wider;
    }
    this.labels[at] = number;
  }

  private grow(capacity: number): void {
    const labels = this.labels instanceof Uint16Array ? new Uint16Array(capacity * COLUMNS) : new Uint32Array(capacity * COLUMNS);
    labels.set(this.labels.subarray(0, this.rows * COLUMNS));
    this.labels = labels;
    const rates = new Float64Array(capacity);
    rates.set(this.rates.subarray(0, this.rows));
    this.rates = rates;
  }
}
