// The AudioWorklet processor: its own instance of the wasm module, one model (or instrument) in
// its own engine, rendered in blocks of BLOCK frames and handed out a render quantum
// at a time. Nothing in process() allocates: the block views are made once (again only if the
// wasm memory grows, which rendering never does once a block has been rendered) and samples are
// copied one by one. The page's changes (factors, a scheme or a rate, plucks, notes) arrive as
// messages, handled between two calls of process(): between blocks.

import type { Settings } from './checked';
import { HookeModel } from './hooke';
import { HookeInstrument } from './hooke-play';

/** Frames rendered per call into the wasm module: larger calls cost less per frame than 128. */
const BLOCK = 512;

/** What the page passes when it makes the node. */
export interface Options {
  module: WebAssembly.Module;
  /** 'model': a model file, channel 1 on every output channel; 'instrument': an instrument
   * file, played live in stereo. */
  kind: 'model' | 'instrument';
  /** The model or instrument file, UTF-8, and its name for errors. */
  text: Uint8Array;
  name: Uint8Array;
  /** The factors (models), the scheme and the rate (Hz: an instrument's output rate). */
  settings: Settings;
  /** Models: output samples per pickup unit (m or m/s), and where to pluck before the first
   * block (null: no pluck). */
  gain: number;
  pluck: number | null;
  pluckAmplitude: number;
  /** Instruments: MIDI notes struck before the first block. */
  notes: number[];
}

/** A change from the page. */
export type Message =
  | { type: 'tension' | 'damping' | 'mass' | 'gain'; value: number }
  | { type: 'configure'; scheme: number; rate: number }
  | { type: 'pluck'; position: number; amplitude: number }
  | { type: 'note'; note: number; velocity: number }
  | { type: 'midi'; bytes: number[] }
  | { type: 'positions' }
  | { type: 'timing' };

declare const registerProcessor: (name: string, processor: unknown) => void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}

class HookeProcessor extends AudioWorkletProcessor {
  private model: HookeModel | null = null;
  /** An instrument: interleaved stereo blocks. */
  private stereo: HookeInstrument | null = null;
  /** The current block: a model's channel 1, or interleaved stereo. */
  private block: Float32Array | null = null;
  /** Frames of the block already handed out. */
  private used = BLOCK;
  private gain: number;
  /** When the first block was rendered and the last finished (Date.now(), ms), and the frames
   * rendered: the render's own time, the build left out (a 'timing' message asks for it). */
  private renderFirst = 0;
  private renderLast = 0;
  private renderedFrames = 0;
  private failed = false;

  constructor(options: { processorOptions: Options }) {
    super();
    const o = options.processorOptions;
    this.gain = o.gain;
    // Synchronous: the first render quantum (frame 0 of an offline render) already has the model.
    const instance = new WebAssembly.Instance(o.module, {});
    // Before the load: a node that failed to load still answers a 'timing' request.
    this.port.onmessage = (event: MessageEvent<Message>) => this.receive(event.data);
    const loaded = this.load(instance, o);
    if (loaded instanceof Uint8Array) {
      this.fail(loaded);
      return;
    }
    this.port.postMessage({ type: 'ready' });
  }

  /** Loads what `o` names; the error bytes on failure. */
  private load(instance: WebAssembly.Instance, o: Options): Uint8Array | null {
    if (o.kind === 'model') {
      const model = HookeModel.load(instance, o.text, o.name, o.settings);
      if (model instanceof Uint8Array) return model;
      this.model = model;
      return model.setFactors(o.settings) ?? (o.pluck !== null ? model.pluck(o.pluck, o.pluckAmplitude) : null);
    }
    const instrument = HookeInstrument.load(instance, o.text, o.name, o.settings);
    if (instrument instanceof Uint8Array) return instrument;
    this.stereo = instrument;
    for (const note of o.notes) this.check(instrument.note(note, 100));
    return null;
  }

  private receive(message: Message): void {
    if (message.type === 'timing') {
      const seconds = (this.renderLast - this.renderFirst) / 1000;
      this.port.postMessage({ type: 'timing', seconds, frames: this.renderedFrames });
      return;
    }
    const stereo = this.stereo;
    if (stereo !== null) {
      if (message.type === 'note') this.check(stereo.note(message.note, message.velocity));
      else if (message.type === 'midi') this.check(stereo.midi(message.bytes));
      return;
    }
    const model = this.model;
    if (model === null) return;
    switch (message.type) {
      case 'tension':
        this.check(model.setTension(message.value));
        break;
      case 'damping':
        this.check(model.setDamping(message.value));
        break;
      case 'mass':
        this.check(model.setMass(message.value));
        break;
      case 'configure':
        this.check(model.reconfigure(message));
        break;
      case 'gain':
        this.gain = message.value;
        break;
      case 'pluck':
        this.check(model.pluck(message.position, message.amplitude));
        break;
      case 'positions':
        // Here, between blocks, not in process(): the copy and the message allocate.
        this.port.postMessage({ type: 'positions', positions: model.positions() });
        break;
    }
  }

  private check(error: Uint8Array | null): void {
    if (error !== null) this.port.postMessage({ type: 'error', error });
  }

  private fail(error: Uint8Array): void {
    this.failed = true;
    this.port.postMessage({ type: 'error', error });
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0];
    if (this.failed || (this.model === null && this.stereo === null)) {
      for (const channel of output) channel.fill(0);
      return true;
    }
    const stereo = this.stereo !== null;
    const left = output[0];
    const right = output.length > 1 ? output[1] : null;
    let i = 0;
    while (i < left.length) {
      if (this.used === BLOCK && !this.next()) {
        for (const channel of output) channel.fill(0, i);
        return true;
      }
      const block = this.block as Float32Array;
      const n = Math.min(left.length - i, BLOCK - this.used);
      if (stereo) {
        for (let k = 0; k < n; k++) {
          left[i + k] = block[2 * (this.used + k)];
          if (right !== null) right[i + k] = block[2 * (this.used + k) + 1];
        }
      } else {
        for (let k = 0; k < n; k++) left[i + k] = block[this.used + k] * this.gain;
        if (right !== null) for (let k = 0; k < n; k++) right[i + k] = left[i + k];
      }
      this.used += n;
      i += n;
    }
    return true;
  }

  /** Renders the next block; false (after reporting) on an instability. */
  private next(): boolean {
    this.used = 0;
    if (this.renderedFrames === 0) this.renderFirst = Date.now();
    const source = (this.stereo ?? this.model) as HookeModel | HookeInstrument;
    this.block = source.render(BLOCK);
    if (this.block === null) {
      this.fail(source.lastError());
      return false;
    }
    this.renderLast = Date.now();
    this.renderedFrames += BLOCK;
    return true;
  }
}

registerProcessor('hooke', HookeProcessor);
