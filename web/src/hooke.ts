// The wasm module's exports (crates/hooke-web/src/lib.rs) behind a small class, shared by the
// page and the AudioWorklet. It takes text as UTF-8 bytes, since an AudioWorklet has no
// TextEncoder, and re-creates its views of the wasm memory whenever the memory has grown.

/** The raw exports of hooke_web.wasm. */
interface Exports {
  memory: WebAssembly.Memory;
  hooke_alloc(len: number): number;
  hooke_free(ptr: number, len: number): void;
  hooke_load(text: number, textLen: number, name: number, nameLen: number): number;
  hooke_drop(handle: number): void;
  hooke_error_ptr(): number;
  hooke_error_len(): number;
  hooke_max_frames(): number;
  hooke_rate(handle: number): number;
  hooke_channels(handle: number): number;
  hooke_frames(handle: number): number;
  hooke_render(handle: number, frames: number): number;
  hooke_set_tension(handle: number, factor: number): number;
  hooke_set_damping(handle: number, factor: number): number;
  hooke_pluck(handle: number, position: number, amplitude: number): number;
  hooke_lowest_frequency(handle: number): number;
  hooke_modes(handle: number): number;
  hooke_mode_count(handle: number): number;
  hooke_live_load(text: number, textLen: number, name: number, nameLen: number, rate: number): number;
  hooke_live_drop(handle: number): void;
  hooke_live_check(text: number, textLen: number, name: number, nameLen: number): number;
  hooke_live_max_frames(): number;
  hooke_live_oversample(handle: number): number;
  hooke_live_note(handle: number, note: number, velocity: number): number;
  hooke_live_render(handle: number, frames: number): number;
}

/** A model loaded into its own engine in one instance of the module. */
export class HookeModel {
  private readonly exports: Exports;
  private handle: number;
  private readonly bufferPtr: number;
  /** The most frames one render gives. */
  readonly maxFrames: number;
  /** Simulation and output rate, Hz. */
  readonly rate: number;
  /** Frames the file's [run] asks for. */
  readonly frames: number;
  private view: Float32Array;

  private constructor(exports: Exports, handle: number) {
    this.exports = exports;
    this.handle = handle;
    this.maxFrames = exports.hooke_max_frames();
    this.rate = exports.hooke_rate(handle);
    this.frames = exports.hooke_frames(handle);
    // The first render fixes the buffer's address (allocated at load, it never moves).
    this.bufferPtr = exports.hooke_render(handle, 0);
    this.view = new Float32Array(exports.memory.buffer, this.bufferPtr, this.maxFrames);
  }

  /**
   * Loads the model file `text` (UTF-8 bytes) called `name` into a new engine of `instance`;
   * returns the model, or the error bytes (UTF-8 JSON: file, line, column, message).
   */
  static load(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array): HookeModel | Uint8Array {
    const exports = instance.exports as unknown as Exports;
    const textPtr = copyIn(exports, text);
    const namePtr = copyIn(exports, name);
    const handle = exports.hooke_load(textPtr, text.length, namePtr, name.length);
    exports.hooke_free(textPtr, text.length);
    exports.hooke_free(namePtr, name.length);
    if (handle === 0) return lastError(exports);
    return new HookeModel(exports, handle);
  }

  /**
   * Renders the next `frames` frames (at most maxFrames) of channel 0; returns a view of them
   * (pickup units, m or m/s) valid until the next call. Null on an instability.
   */
  render(frames: number): Float32Array | null {
    const ptr = this.exports.hooke_render(this.handle, frames);
    if (ptr === 0) return null;
    if (this.view.buffer !== this.exports.memory.buffer) {
      this.view = new Float32Array(this.exports.memory.buffer, this.bufferPtr, this.maxFrames);
    }
    return this.view;
  }

  /** Every stiffness times `factor` (> 0) of its loaded value; the error bytes on failure. */
  setTension(factor: number): Uint8Array | null {
    return this.status(this.exports.hooke_set_tension(this.handle, factor));
  }

  /** Every damping and drag times `factor` (>= 0) of its loaded value. */
  setDamping(factor: number): Uint8Array | null {
    return this.status(this.exports.hooke_set_damping(this.handle, factor));
  }

  /** A pluck at `position` (0 to 1 along the string) of height `amplitude`, m (1D models). */
  pluck(position: number, amplitude: number): Uint8Array | null {
    return this.status(this.exports.hooke_pluck(this.handle, position, amplitude));
  }

  /** The analysis' digital frequency of the lowest vibrating mode now, Hz (NaN: none). */
  lowestFrequency(): number {
    return this.exports.hooke_lowest_frequency(this.handle);
  }

  /** Every mode now, by increasing analog frequency: 4 numbers each, the analog and digital
   * frequencies (Hz) and the discrete pole (re, im); null on failure (lastError says why). */
  modes(): Float64Array | null {
    const ptr = this.exports.hooke_modes(this.handle);
    if (ptr === 0) return null;
    const count = this.exports.hooke_mode_count(this.handle);
    return new Float64Array(this.exports.memory.buffer, ptr, 4 * count).slice();
  }

  /** The error bytes of the last failed call. */
  lastError(): Uint8Array {
    return lastError(this.exports);
  }

  /** Frees the engine. */
  free(): void {
    if (this.handle !== 0) this.exports.hooke_drop(this.handle);
    this.handle = 0;
  }

  private status(code: number): Uint8Array | null {
    return code === 0 ? null : lastError(this.exports);
  }
}

/** An instrument file built to be played live, in one instance of the module. */
export class HookeInstrument {
  private readonly exports: Exports;
  private handle: number;
  private readonly bufferPtr: number;
  /** The most frames one render gives. */
  readonly maxFrames: number;
  /** Simulation steps per output frame. */
  readonly oversample: number;
  private view: Float32Array;

  private constructor(exports: Exports, handle: number) {
    this.exports = exports;
    this.handle = handle;
    this.maxFrames = exports.hooke_live_max_frames();
    this.oversample = exports.hooke_live_oversample(handle);
    this.bufferPtr = exports.hooke_live_render(handle, 0);
    this.view = new Float32Array(exports.memory.buffer, this.bufferPtr, 2 * this.maxFrames);
  }

  /** Builds the instrument file `text` (UTF-8) called `name` to play at `rate` Hz in a new
   * engine of `instance`; the instrument, or the error bytes. */
  static load(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array, rate: number): HookeInstrument | Uint8Array {
    const exports = instance.exports as unknown as Exports;
    const textPtr = copyIn(exports, text);
    const namePtr = copyIn(exports, name);
    const handle = exports.hooke_live_load(textPtr, text.length, namePtr, name.length, rate);
    exports.hooke_free(textPtr, text.length);
    exports.hooke_free(namePtr, name.length);
    if (handle === 0) return lastError(exports);
    return new HookeInstrument(exports, handle);
  }

  /** Checks the instrument file `text` (UTF-8) called `name` as it is read, without building
   * it; null, or the error bytes. */
  static check(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array): Uint8Array | null {
    const exports = instance.exports as unknown as Exports;
    const textPtr = copyIn(exports, text);
    const namePtr = copyIn(exports, name);
    const status = exports.hooke_live_check(textPtr, text.length, namePtr, name.length);
    exports.hooke_free(textPtr, text.length);
    exports.hooke_free(namePtr, name.length);
    return status === 0 ? null : lastError(exports);
  }

  /** MIDI note `note` pressed with `velocity` (1 to 127) or lifted (0); the error bytes if the
   * instrument cannot play it. */
  note(note: number, velocity: number): Uint8Array | null {
    return this.exports.hooke_live_note(this.handle, note, velocity) === 0 ? null : lastError(this.exports);
  }

  /** Renders the next `frames` frames (at most maxFrames); a view of them, interleaved stereo,
   * full scale 1, valid until the next call. */
  render(frames: number): Float32Array {
    this.exports.hooke_live_render(this.handle, frames);
    if (this.view.buffer !== this.exports.memory.buffer) {
      this.view = new Float32Array(this.exports.memory.buffer, this.bufferPtr, 2 * this.maxFrames);
    }
    return this.view;
  }

  /** Frees the instrument. */
  free(): void {
    if (this.handle !== 0) this.exports.hooke_live_drop(this.handle);
    this.handle = 0;
  }
}

/** Whether `text` is a model file (it has a `[model]` table) rather than an instrument file. */
export function isModelFile(text: string): boolean {
  return /^\s*\[model\]/m.test(text);
}

function copyIn(exports: Exports, bytes: Uint8Array): number {
  const ptr = exports.hooke_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

function lastError(exports: Exports): Uint8Array {
  const bytes = new Uint8Array(exports.memory.buffer, exports.hooke_error_ptr(), exports.hooke_error_len());
  return bytes.slice();
}

/** An error from the module, decoded (on the page: it has a TextDecoder). */
export interface HookeError {
  file: string;
  line: number | null;
  column: number | null;
  message: string;
}

/** Decodes the UTF-8 JSON error bytes. */
export function decodeError(bytes: Uint8Array): HookeError {
  return JSON.parse(new TextDecoder().decode(bytes)) as HookeError;
}
