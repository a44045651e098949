// The wasm module's exports (crates/hooke-web/src/lib.rs) behind a small class, shared by the
// page, the checker and the AudioWorklet (instruments and scores: hooke-play.ts). It takes text as UTF-8 bytes, since an AudioWorklet has no
// TextEncoder, and re-creates its views of the wasm memory whenever the memory has grown.

/** The raw exports of hooke_web.wasm. */
export interface Exports {
  memory: WebAssembly.Memory;
  hooke_alloc(len: number): number;
  hooke_free(ptr: number, len: number): void;
  hooke_load(text: number, textLen: number, name: number, nameLen: number, scheme: number, rate: number): number;
  hooke_reconfigure(handle: number, scheme: number, rate: number): number;
  hooke_scheme(handle: number): number;
  hooke_schemes(): number;
  hooke_schemes_len(): number;
  hooke_set_mass(handle: number, factor: number): number;
  hooke_dimension(handle: number): number;
  hooke_mass_count(handle: number): number;
  hooke_node_count(handle: number): number;
  hooke_positions(handle: number): number;
  hooke_links(handle: number): number;
  hooke_link_count(handle: number): number;
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
  hooke_live_load(text: number, textLen: number, name: number, nameLen: number, rate: number, scheme: number): number;
  hooke_live_midi(handle: number, status: number, data1: number, data2: number, len: number): number;
  hooke_instrument_load(text: number, textLen: number, name: number, nameLen: number, rate: number, scheme: number): number;
  hooke_instrument_drop(handle: number): void;
  hooke_score_check(instrument: number, text: number, textLen: number, name: number, nameLen: number): number;
  hooke_score_load(instrument: number, text: number, textLen: number, name: number, nameLen: number): number;
  hooke_score_drop(handle: number): void;
  hooke_score_frames(handle: number): number;
  hooke_score_max_frames(): number;
  hooke_score_render(handle: number, frames: number): number;
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
   * Loads the model file `text` (UTF-8 bytes) called `name` into a new engine of `instance`, at
   * `config`'s scheme and rate (the file's by default); returns the model, or the error bytes
   * (UTF-8 JSON: file, line, column, message).
   */
  static load(instance: WebAssembly.Instance, text: Uint8Array, name: Uint8Array, config: EngineChoice = FILE_CHOICE): HookeModel | Uint8Array {
    const exports = instance.exports as unknown as Exports;
    const handle = withText(exports, text, name, (t, tl, n, nl) => exports.hooke_load(t, tl, n, nl, config.scheme, config.rate));
    return handle === 0 ? lastError(exports) : new HookeModel(exports, handle);
  }

  /** Rebuilds the engine at `config`'s scheme and rate from the state now (the sound goes on);
   * the error bytes on failure. */
  reconfigure(config: EngineChoice): Uint8Array | null {
    return this.status(this.exports.hooke_reconfigure(this.handle, config.scheme, config.rate));
  }

  /** The number of the scheme the engine runs, in schemeNames(). */
  scheme(): number {
    return this.exports.hooke_scheme(this.handle);
  }

  /** The factors on every stiffness, damping and mass (those other than 1); the error bytes of
   * the first refused. */
  setFactors(factors: { tension: number; damping: number; mass: number }): Uint8Array | null {
    if (factors.tension !== 1 || factors.damping !== 1) {
      const failed = this.setTension(factors.tension) ?? this.setDamping(factors.damping);
      if (failed !== null) return failed;
    }
    return factors.mass !== 1 ? this.setMass(factors.mass) : null;
  }

  /** Every mass times `factor` (> 0) of its loaded value. */
  setMass(factor: number): Uint8Array | null {
    return this.status(this.exports.hooke_set_mass(this.handle, factor));
  }

  /** What the drawing of the model needs: coordinates per node, masses (the first nodes), the
   * links' nodes (two per link). */
  shape(): { dimension: number; masses: number; links: Uint32Array } {
    const count = this.exports.hooke_link_count(this.handle);
    const ptr = this.exports.hooke_links(this.handle);
    const links = new Uint32Array(this.exports.memory.buffer, ptr, 2 * count).slice();
    return { dimension: this.exports.hooke_dimension(this.handle), masses: this.exports.hooke_mass_count(this.handle), links };
  }

  /** Every node's position now, m (dimension numbers per node, masses then anchors); a copy. */
  positions(): Float64Array {
    const ptr = this.exports.hooke_positions(this.handle);
    const count = this.exports.hooke_node_count(this.handle) * this.exports.hooke_dimension(this.handle);
    return new Float64Array(this.exports.memory.buffer, ptr, count).slice();
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

/** The largest |sample| of `samples`. */
export function maxAbs(samples: Float32Array): number {
  let peak = 0;
  for (const x of samples) peak = Math.max(peak, Math.abs(x));
  return peak;
}

/** Whether `text` is a model file (it has a `[model]` table) rather than an instrument file. */
export function isModelFile(text: string): boolean {
  return /^\s*\[model\]/m.test(text);
}

/** The scheme (its number in schemeNames(), -1: the file's) and the rate (Hz, 0: the file's)
 * the page asks for. */
export interface EngineChoice {
  scheme: number;
  rate: number;
}

/** The file's own scheme and rate. */
export const FILE_CHOICE: EngineChoice = { scheme: -1, rate: 0 };

/** The schemes' names, numbered as EngineChoice numbers them. */
export function schemeNames(instance: WebAssembly.Instance): string[] {
  const exports = instance.exports as unknown as Exports;
  // The first call makes the list, which may grow the memory: the view is made after.
  const [ptr, len] = [exports.hooke_schemes(), exports.hooke_schemes_len()];
  const bytes = new Uint8Array(exports.memory.buffer, ptr, len);
  return JSON.parse(new TextDecoder().decode(bytes)) as string[];
}

/** Calls `load` with `text` and `name` copied into the module's memory, then frees them. */
export function withText(exports: Exports, text: Uint8Array, name: Uint8Array, load: (text: number, textLen: number, name: number, nameLen: number) => number): number {
  const textPtr = copyIn(exports, text);
  const namePtr = copyIn(exports, name);
  const result = load(textPtr, text.length, namePtr, name.length);
  exports.hooke_free(textPtr, text.length);
  exports.hooke_free(namePtr, name.length);
  return result;
}

function copyIn(exports: Exports, bytes: Uint8Array): number {
  const ptr = exports.hooke_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

export function lastError(exports: Exports): Uint8Array {
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
