/**
 * Progress of a long create on stderr, redrawn in place: count, rate, ETA.
 * Only on a terminal; logs and CI get the summary line at the end instead.
 */
import { systemClock, type Clock } from '../../core/clock.js';
import type { Output } from './output.js';

const REDRAW_MS = 250;

export class Progress {
  private readonly enabled: boolean;
  private readonly started: number;
  private done_ = 0;
  private created = 0;
  private skipped = 0;
  private failed = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: Output,
    private readonly total: number,
    /** The command's clock (io.clock): the rate and the ETA are measured on it. */
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {
    this.started = clock.now();
    this.enabled = output.stderrIsTTY && total > 1;
    if (this.enabled) {
      this.timer = setInterval(() => this.draw(), REDRAW_MS);
      this.timer.unref();
    }
  }

  count(status: 'created' | 'skipped' | 'failed'): void {
    this.done_++;
    if (status === 'created') this.created++;
    if (status === 'skipped') this.skipped++;
    if (status === 'failed') this.failed++;
  }

  /**
   * "1,204/10,000 · created 1,200 · already 0 · failed 4 · 9.9/s · ETA 14m 48s". The rate
   * counts only what was sent: inputs already created take no time and would flatter it.
   */
  line(now = this.clock.now()): string {
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const rate = (this.created + this.failed) / seconds;
    const left = this.total - this.done_;
    const eta = rate > 0 ? left / rate : Number.POSITIVE_INFINITY;
    const etaText = !Number.isFinite(eta)
      ? '…'
      : eta >= 3600
        ? `${Math.floor(eta / 3600)}h ${Math.round((eta % 3600) / 60)}m`
        : eta >= 60
          ? `${Math.floor(eta / 60)}m ${Math.round(eta % 60)}s`
          : `${Math.round(eta)}s`;
    const n = (x: number) => x.toLocaleString('en-US');
    return `${n(this.done_)}/${n(this.total)} · created ${n(this.created)}${this.skipped ? ` · already ${n(this.skipped)}` : ''} · failed ${n(this.failed)} · ${rate.toFixed(1)}/s · ETA ${etaText}`;
  }

  private draw(): void {
    this.output.status(this.line());
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.enabled) this.output.status('');
  }
}
