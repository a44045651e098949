// The AudioWorklet processor: its own instance of the wasm module, one model in its own engine,
// rendered in blocks of BLOCK frames and handed out a render quantum at a time. Nothing in
// process() allocates: the block view is made once (again only if the wasm memory grows, which
// rendering never does once a block has been rendered) and samples are copied one by one.

import { HookeModel } from './hooke';

/** Frames rendered per call into the wasm module: larger calls cost less per frame than 128. */
const BLOCK = 512;

/** What the page passes when it makes the node. */
interface Options {
  module: WebAssembly.Module;
  /** The model file, UTF-8. */
  text: Uint8Array;
  /** Its name for errors, UTF-8. */
  name: Uint8Array;
  /** Factors on every stiffness and every damping. */
  tension: number;
  damping: number;
  /** Output samples per pickup unit (m or m/s). */
  gain: number;
}

/** A change from the page. */
type Message =
  | { type: 'tension'; value: number }
  | { type: 'damping'; value: number }
  | { type: 'gain'; value: number }
  | { type: 'pluck'; position: number; amplitude: number };

declare const registerProcessor: (name: string, processor: unknown) => void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}

class HookeProcessor extends AudioWorkletProcessor {
  private model: HookeModel | null = null;
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
    const loaded = HookeModel.load(instance, o.text, o.name);
    if (loaded instanceof Uint8Array) {
      this.fail(loaded);
      return;
    }
    this.model = loaded;
    if (o.tension !== 1) this.check(loaded.setTension(o.tension));
    if (o.damping !== 1) this.check(loaded.setDamping(o.damping));
    this.port.onmessage = (event: MessageEvent<Message>) => this.receive(event.data);
  }

  private receive(message: Message): void {
    const model = this.model;
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
    const out = outputs[0][0];
    const model = this.model;
    if (model === null || this.failed) {
      out.fill(0);
      return true;
    }
    let i = 0;
    while (i < out.length) {
      if (this.used === BLOCK) {
        this.block = model.render(BLOCK);
        this.used = 0;
        if (this.block === null) {
          this.fail(model.lastError());
          out.fill(0, i);
          return true;
        }
      }
      const block = this.block as Float32Array;
      const n = Math.min(out.length - i, BLOCK - this.used);
      for (let k = 0; k < n; k++) out[i + k] = block[this.used + k] * this.gain;
      this.used += n;
      i += n;
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    return true;
  }
}

registerProcessor('hooke', HookeProcessor);
