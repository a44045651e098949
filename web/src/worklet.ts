// The AudioWorklet processor: its own instance of the wasm module, one model (or instrument)
// in its own engine, rendered in blocks of BLOCK frames and handed out a render quantum at a
// time. Nothing in process() allocates: the block views are made once (again only if the wasm
// memory grows, which rendering never does once a block has been rendered) and samples are
// copied one by one.

import { HookeInstrument, HookeModel } from './hooke';

/** Frames rendered per call into the wasm module: larger calls cost less per frame than 128. */
const BLOCK = 512;

/** What the page passes when it makes the node. */
interface Options {
  module: WebAssembly.Module;
  /** 'model': a model file, channel 1 on every output channel; 'instrument': an instrument
   * file, played live in stereo. */
  kind: 'model' | 'instrument';
  /** The file, UTF-8. */
  text: Uint8Array;
  /** Its name for errors, UTF-8. */
  name: Uint8Array;
  /** Models: factors on every stiffness and every damping, and output samples per pickup
   * unit (m or m/s). */
  tension: number;
  damping: number;
  gain: number;
  /** Instruments: the output rate, Hz, and MIDI notes struck before the first block. */
  rate: number;
  notes: number[];
}

/** A change from the page. */
type Message =
  | { type: 'tension'; value: number }
  | { type: 'damping'; value: number }
  | { type: 'gain'; value: number }
  | { type: 'pluck'; position: number; amplitude: number }
  | { type: 'note'; note: number; velocity: number };

declare const registerProcessor: (name: string, processor: unknown) => void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}

class HookeProcessor extends AudioWorkletProcessor {
  private model: HookeModel | null = null;
  private instrument: HookeInstrument | null = null;
  /** The current block: a model's channel 1, or an instrument's interleaved stereo. */
  private block: Float32Array | null = null;
  /** Frames of the block already handed out. */
  private used = BLOCK;
  private gain: number;
  private failed = false;

  constructor(options: { processorOptions: Options }) {
    super();
    const o = options.processorOptions;
    this.gain = o.gain;
    // Synchronous: the first render quantum (frame 0 of an offline render) already has the model.
    const instance = new WebAssembly.Instance(o.module, {});
    if (o.kind === 'instrument') {
      const loaded = HookeInstrument.load(instance, o.text, o.name, o.rate);
      if (loaded instanceof Uint8Array) {
        this.fail(loaded);
        return;
      }
      this.instrument = loaded;
      for (const note of o.notes) this.check(loaded.note(note, 100));
    } else {
      const loaded = HookeModel.load(instance, o.text, o.name);
      if (loaded instanceof Uint8Array) {
        this.fail(loaded);
        return;
      }
      this.model = loaded;
      if (o.tension !== 1) this.check(loaded.setTension(o.tension));
      if (o.damping !== 1) this.check(loaded.setDamping(o.damping));
    }
    this.port.onmessage = (event: MessageEvent<Message>) => this.receive(event.data);
    this.port.postMessage({ type: 'ready' });
  }

  private receive(message: Message): void {
    const model = this.model;
    if (message.type === 'note') {
      if (this.instrument !== null) this.check(this.instrument.note(message.note, message.velocity));
      return;
    }
    if (model === null) return;
    switch (message.type) {
      case 'tension':
        this.check(model.setTension(message.value));
        break;
      case 'damping':
        this.check(model.setDamping(message.value));
        break;
      case 'gain':
        this.gain = message.value;
        break;
      case 'pluck':
        this.check(model.pluck(message.position, message.amplitude));
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
    if (this.failed || (this.model === null && this.instrument === null)) {
      for (const channel of output) channel.fill(0);
      return true;
    }
    const stereo = this.instrument !== null;
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
    if (this.instrument !== null) {
      this.block = this.instrument.render(BLOCK);
      return true;
    }
    const model = this.model as HookeModel;
    this.block = model.render(BLOCK);
    if (this.block === null) {
      this.fail(model.lastError());
      return false;
    }
    return true;
  }
}

registerProcessor('hooke', HookeProcessor);
