// The checker: a dedicated worker with its own instance of the wasm module, so that the page's
// thread never waits on the simulation. For each text the page sends, it parses and builds the
// model (or parses the instrument) at the page's scheme and rate, applies the sliders' factors,
// asks the analysis for the modes and renders a preview; for a score, it builds the instrument
// (once per instrument text, scheme and rate) and reads the score against it, and renders it
// when asked (here rather than in the worklet: a score's cues allocate as they apply, which a
// worklet's process() must not). It answers with what the page shows, or the error.

import type { Answer, Checked, CheckedScore, Request, Settings } from './checked';
import { INSTRUMENT_RATE, INSTRUMENT_RENDER_SECONDS, PLUCK_AMPLITUDE } from './checked';
import { decodeError, HookeError, HookeModel, isModelFile, maxAbs, schemeNames } from './hooke';
import { HookeBuilt, HookeInstrument } from './hooke-play';

/** Frames of the preview render (signal and spectrum while stopped; the live gain). */
const PREVIEW_FRAMES = 16384;
/** Peak output level the live gain aims at (full scale is 1). */
const LIVE_PEAK = 0.5;

declare const self: { onmessage: ((event: MessageEvent<Request>) => void) | null; postMessage(message: Answer): void };

const encoder = new TextEncoder();
const fileName = encoder.encode('model.toml');
const scoreName = encoder.encode('score.toml');
let instance: WebAssembly.Instance | null = null;
/** The instrument the last score was read against, and what it was built from. */
let built: { key: string; instrument: HookeBuilt } | null = null;

/** Renders `frames` frames of channel 1 of `model`; null on an instability. */
function renderFrames(model: HookeModel, frames: number): Float32Array | null {
  const samples = new Float32Array(frames);
  for (let at = 0; at < frames; at += model.maxFrames) {
    const n = Math.min(model.maxFrames, frames - at);
    const block = model.render(n);
    if (block === null) return null;
    samples.set(block.subarray(0, n), at);
  }
  return samples;
}

/** Checks a model file at the page's settings. */
function checkModel(instance: WebAssembly.Instance, text: string, settings: Settings): Checked | HookeError {
  const model = HookeModel.load(instance, encoder.encode(text), fileName, settings);
  if (model instanceof Uint8Array) return decodeError(model);
  try {
    const failed = model.setFactors(settings);
    if (failed !== null) return decodeError(failed);
    const predicted = model.lowestFrequency();
    const modes = model.modes();
    if (modes === null) return decodeError(model.lastError());
    const shape = { ...model.shape(), positions: model.positions() };
    let preview = renderFrames(model, PREVIEW_FRAMES);
    if (preview === null) return decodeError(model.lastError());
    const atRest = maxAbs(preview) === 0;
    if (atRest && model.pluck(settings.pluck, PLUCK_AMPLITUDE) === null) {
      preview = renderFrames(model, PREVIEW_FRAMES);
      if (preview === null) return decodeError(model.lastError());
    }
    const peak = maxAbs(preview);
    const gain = peak > 0 ? LIVE_PEAK / peak : 1;
    const scheme = schemeName(model.scheme());
    return { kind: 'model', text, rate: model.rate, scheme, frames: model.frames, predicted, gain, atRest, preview, modes, shape };
  } finally {
    model.free();
  }
}

let names: string[] = [];
function schemeName(index: number): string {
  return names[index] ?? '';
}

/** Checks an instrument file as it is read (it is built when played). */
function checkInstrument(instance: WebAssembly.Instance, text: string, settings: Settings): Checked | HookeError {
  const error = HookeInstrument.check(instance, encoder.encode(text), fileName);
  if (error !== null) return decodeError(error);
  const rate = settings.rate > 0 ? settings.rate : INSTRUMENT_RATE;
  const frames = INSTRUMENT_RENDER_SECONDS * rate;
  const [preview, modes] = [new Float32Array(0), new Float64Array(0)];
  const scheme = schemeName(settings.scheme);
  return { kind: 'instrument', text, rate, scheme, frames, predicted: NaN, gain: 1, atRest: false, preview, modes, shape: null };
}

/** Reads a score against its instrument, built at the page's scheme and rate (the build is
 * kept for the next score of the same instrument). */
function checkScore(instance: WebAssembly.Instance, score: string, instrument: string, settings: Settings): CheckedScore | HookeError {
  const rate = settings.rate > 0 ? settings.rate : INSTRUMENT_RATE;
  const key = `${settings.scheme} ${rate} ${instrument}`;
  if (built?.key !== key) {
    built?.instrument.free();
    built = null;
    const loaded = HookeBuilt.load(instance, encoder.encode(instrument), fileName, { scheme: settings.scheme, rate });
    if (loaded instanceof Uint8Array) return decodeError(loaded);
    built = { key, instrument: loaded };
  }
  const frames = built.instrument.checkScore(encoder.encode(score), scoreName);
  return frames instanceof Uint8Array ? decodeError(frames) : { frames, rate };
}

/** Renders a score on the instrument the last check built: the mean of its two channels. */
function renderScore(score: string, frames: number): Float32Array | HookeError {
  const player = built?.instrument.score(encoder.encode(score), scoreName);
  if (player === undefined) return { file: 'score.toml', line: null, column: null, message: 'no instrument built' };
  if (player instanceof Uint8Array) return decodeError(player);
  try {
    const samples = new Float32Array(frames);
    for (let at = 0; at < frames; at += player.maxFrames) {
      const n = Math.min(player.maxFrames, frames - at);
      const block = player.render(n);
      if (block === null) return decodeError(player.lastError());
      for (let i = 0; i < n; i++) samples[at + i] = 0.5 * (block[2 * i] + block[2 * i + 1]);
    }
    return samples;
  } finally {
    player.free();
  }
}

self.onmessage = (event: MessageEvent<Request>) => {
  const request = event.data;
  if ('module' in request) {
    instance = new WebAssembly.Instance(request.module, {});
    names = schemeNames(instance);
    return;
  }
  if (instance === null) return;
  const { id, settings } = request;
  if ('score' in request) {
    const result = checkScore(instance, request.score, request.instrument, settings);
    if (!('frames' in result)) {
      self.postMessage({ id, error: result });
      return;
    }
    const samples = request.render ? renderScore(request.score, result.frames) : undefined;
    if (samples !== undefined && !(samples instanceof Float32Array)) self.postMessage({ id, error: samples });
    else self.postMessage({ id, score: result, samples });
    return;
  }
  const text = request.text;
  const result = isModelFile(text) ? checkModel(instance, text, settings) : checkInstrument(instance, text, settings);
  self.postMessage('kind' in result ? { id, checked: result } : { id, error: result });
};
