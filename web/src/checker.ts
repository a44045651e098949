// The checker: a dedicated worker with its own instance of the wasm module, so that the page's
// thread never waits on the simulation. For each text the page sends, it parses and builds the
// model (or parses the instrument), applies the sliders' factors, asks the analysis for the
// modes and renders a preview; it answers with what the page shows, or the error.

import type { Answer, Checked, Request } from './checked';
import { INSTRUMENT_RATE, INSTRUMENT_RENDER_SECONDS, PLUCK_AMPLITUDE } from './checked';
import { decodeError, HookeError, HookeInstrument, HookeModel, isModelFile } from './hooke';

/** Frames of the preview render (signal and spectrum while stopped; the live gain). */
const PREVIEW_FRAMES = 16384;
/** Peak output level the live gain aims at (full scale is 1). */
const LIVE_PEAK = 0.5;

declare const self: { onmessage: ((event: MessageEvent<Request>) => void) | null; postMessage(message: Answer): void };

const encoder = new TextEncoder();
const fileName = encoder.encode('model.toml');
let instance: WebAssembly.Instance | null = null;

function maxAbs(samples: Float32Array): number {
  let peak = 0;
  for (const x of samples) peak = Math.max(peak, Math.abs(x));
  return peak;
}

/** Checks a model file at the factors `tension` and `damping`. */
function checkModel(instance: WebAssembly.Instance, text: string, tension: number, damping: number): Checked | HookeError {
  const model = HookeModel.load(instance, encoder.encode(text), fileName);
  if (model instanceof Uint8Array) return decodeError(model);
  try {
    const failed = (tension !== 1 ? model.setTension(tension) : null) ?? (damping !== 1 ? model.setDamping(damping) : null);
    if (failed !== null) return decodeError(failed);
    const predicted = model.lowestFrequency();
    const modes = model.modes();
    if (modes === null) return decodeError(model.lastError());
    const preview = new Float32Array(PREVIEW_FRAMES);
    for (let at = 0; at < PREVIEW_FRAMES; at += model.maxFrames) {
      const n = Math.min(model.maxFrames, PREVIEW_FRAMES - at);
      const block = model.render(n);
      if (block === null) return decodeError(model.lastError());
      preview.set(block.subarray(0, n), at);
    }
    let peak = maxAbs(preview);
    if (peak === 0 && model.pluck(0.3, PLUCK_AMPLITUDE) === null) {
      const block = model.render(Math.min(model.maxFrames, PREVIEW_FRAMES));
      peak = block === null ? 0 : maxAbs(block);
    }
    const gain = peak > 0 ? LIVE_PEAK / peak : 1;
    return { kind: 'model', text, rate: model.rate, frames: model.frames, predicted, gain, preview, modes };
  } finally {
    model.free();
  }
}

/** Checks an instrument file as it is read (it is built when played). */
function checkInstrument(instance: WebAssembly.Instance, text: string): Checked | HookeError {
  const error = HookeInstrument.check(instance, encoder.encode(text), fileName);
  if (error !== null) return decodeError(error);
  const rate = INSTRUMENT_RATE;
  const frames = INSTRUMENT_RENDER_SECONDS * rate;
  const [preview, modes] = [new Float32Array(0), new Float64Array(0)];
  return { kind: 'instrument', text, rate, frames, predicted: NaN, gain: 1, preview, modes };
}

self.onmessage = (event: MessageEvent<Request>) => {
  const request = event.data;
  if ('module' in request) {
    instance = new WebAssembly.Instance(request.module, {});
    return;
  }
  if (instance === null) return;
  const { id, text, tension, damping } = request;
  const result = isModelFile(text) ? checkModel(instance, text, tension, damping) : checkInstrument(instance, text);
  self.postMessage('kind' in result ? { id, checked: result } : { id, error: result });
};
