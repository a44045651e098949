// The wasm module's exports that play instrument files (crates/hooke-web/src/play_exports.rs):
// an instrument live from keys and MIDI, an instrument built once for scores, and a score
// performed on it. Each renders blocks of interleaved stereo, full scale 1, into a buffer
// allocated at load that never moves; the views are made again only if the memory has grown.

import type { EngineChoice, Exports } from './hooke';
import { lastError, withText } from './hooke';

/** Interleaved stereo blocks out of a handle's fixed buffer. */
abstract class StereoBlocks {
  protected readonly exports: Exports;
  protected handle: number;
  /** The most frames one render gives. */
  readonly maxFrames: number;
  private bufferPtr = 0;
  private view: Float32Array = new Float32Array(0);

  protected constructor(exports: Exports, handle: number, maxFrames: number) {
    this.exports = exports;
    this.handle = handle;
    this.maxFrames = maxFrames;
  }

  /** Renders `frames` frames into the handle's buffer; its address, 0 on failure. */
  protected abstract renderInto(frames: number): number;

  /** Renders the next `frames` frames (at most maxFrames); a view of them, valid until the
   * next call; null on failure (lastError says why). */
  render(frames: number): Float32Array | null {
    const ptr = this.renderInto(frames);
    if (ptr === 0) return null;
    if (ptr !== this.bufferPtr || this.view.buffer !== this.exports.memory.buffer) {
      this.bufferPtr = ptr;
      this.view = new Float32Array(this.exports.memory.buffer, ptr, 2 * this.maxFrames);
    }
    return this.view;
  }

  /** The error bytes of the last failed call. */
  lastError(): Uint8Array {
    return lastError(this.exports);
  }
}

/** An instrument file built to be played live, in one instance of the module. */
export class HookeInstrument extends StereoBlocks {
  /** Simulation steps per output frame. */
  readonly oversample: number;

  private constructor(exports: Exports, handle: number) {
    super(exports, handle, exports.hooke_live_max_frames());
    this.oversample = exports.hooke_live_oversample(handle);
    this.render(0);
  }

  /** Builds the instrument file `text` (UTF-8) called `name` for `choice`'s scheme (the file's
   * by default) to play at `choice.rate` Hz in a new engine of `instance`; the instrument, or
   * the error bytes. */
  static load(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array, choice: EngineChoice): HookeInstrument | Uint8Array {
    const exports = instance.exports as unknown as Exports;
    const handle = withText(exports, text, name, (t, tl, n, nl) => exports.hooke_live_load(t, tl, n, nl, choice.rate, choice.scheme));
    return handle === 0 ? lastError(exports) : new HookeInstrument(exports, handle);
  }

  /** Checks the instrument file `text` (UTF-8) called `name` as it is read, without building
   * it; null, or the error bytes. */
  static check(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array): Uint8Array | null {
    const exports = instance.exports as unknown as Exports;
    const status = withText(exports, text, name, (t, tl, n, nl) => exports.hooke_live_check(t, tl, n, nl));
    return status === 0 ? null : lastError(exports);
  }

  /** MIDI note `note` pressed with `velocity` (1 to 127) or lifted (0); the error bytes if the
   * instrument cannot play it. */
  note(note: number, velocity: number): Uint8Array | null {
    return this.exports.hooke_live_note(this.handle, note, velocity) === 0 ? null : lastError(this.exports);
  }

  /** A MIDI message (status first): notes, the sustain pedal, pitch bend; others do nothing. */
  midi(bytes: ArrayLike<number>): Uint8Array | null {
    const status = this.exports.hooke_live_midi(this.handle, bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0, Math.min(bytes.length, 3));
    return status === 0 ? null : lastError(this.exports);
  }

  protected renderInto(frames: number): number {
    return this.exports.hooke_live_render(this.handle, frames);
  }

  /** Frees the instrument. */
  free(): void {
    if (this.handle !== 0) this.exports.hooke_live_drop(this.handle);
    this.handle = 0;
  }
}

/** An instrument file built once, for scores to be checked against and played on. */
export class HookeBuilt {
  private readonly exports: Exports;
  private handle: number;

  private constructor(exports: Exports, handle: number) {
    this.exports = exports;
    this.handle = handle;
  }

  /** Builds the instrument file `text` (UTF-8) called `name` for `choice`'s scheme at
   * `choice.rate` Hz in `instance`; the built instrument, or the error bytes. */
  static load(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array, choice: EngineChoice): HookeBuilt | Uint8Array {
    const exports = instance.exports as unknown as Exports;
    const handle = withText(exports, text, name, (t, tl, n, nl) => exports.hooke_instrument_load(t, tl, n, nl, choice.rate, choice.scheme));
    return handle === 0 ? lastError(exports) : new HookeBuilt(exports, handle);
  }

  /** Reads the score file `text` (UTF-8) called `name` against the instrument: the output
   * frames it lasts, or the error bytes (at the line and column of the offending field). */
  checkScore(text: Uint8Array, name: Uint8Array): number | Uint8Array {
    const frames = withText(this.exports, text, name, (t, tl, n, nl) => this.exports.hooke_score_check(this.handle, t, tl, n, nl));
    return frames < 0 ? lastError(this.exports) : frames;
  }

  /** The score file `text` (UTF-8) called `name` ready to play on the instrument, or the error
   * bytes. */
  score(text: Uint8Array, name: Uint8Array): HookeScore | Uint8Array {
    const exports = this.exports;
    const handle = withText(exports, text, name, (t, tl, n, nl) => exports.hooke_score_load(this.handle, t, tl, n, nl));
    return handle === 0 ? lastError(exports) : new HookeScore(exports, handle);
  }

  /** Frees the instrument. */
  free(): void {
    if (this.handle !== 0) this.exports.hooke_instrument_drop(this.handle);
    this.handle = 0;
  }
}

/** A score performed on a built instrument. */
export class HookeScore extends StereoBlocks {
  /** The output frames the score lasts. */
  readonly frames: number;

  constructor(exports: Exports, handle: number) {
    super(exports, handle, exports.hooke_score_max_frames());
    this.frames = exports.hooke_score_frames(handle);
    this.render(0);
  }

  protected renderInto(frames: number): number {
    return this.exports.hooke_score_render(this.handle, frames);
  }

  /** Frees the performance. */
  free(): void {
    if (this.handle !== 0) this.exports.hooke_score_drop(this.handle);
    this.handle = 0;
  }
}
