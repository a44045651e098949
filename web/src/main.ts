// The playground page: the editor checked while typing, play/stop through the AudioWorklet,
// the sliders and keys sent to it as engine events, the pictures, the examples, the share link
// and the WAV download. The page has its own instance of the wasm module for checking and the
// analysis; each AudioWorklet node makes its own from the compiled module.

import { decodeError, HookeError, HookeModel } from './hooke';
import { drawSignal, drawSpectrum, spectrumDb } from './draw';
import { fromShareHash, toShareHash } from './share';
import { encodeWav } from './wav';

/** Milliseconds of quiet typing before the editor's text is checked. */
const CHECK_DELAY = 250;
/** Height of a key's pluck, m. */
const PLUCK_AMPLITUDE = 1e-3;
/** The keys that pluck, from near one end of the string to near the other. */
const PLUCK_KEYS = 'asdfghjkl';
/** Peak output level the live gain aims at (full scale is 1). */
const LIVE_PEAK = 0.5;
/** Frames of the preview render (signal and spectrum while stopped; the live gain). */
const PREVIEW_FRAMES = 16384;
/** Longest offline render, s. */
const MAX_RENDER_SECONDS = 30;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const editor = $<HTMLTextAreaElement>('editor');
const gutter = $<HTMLPreElement>('gutter');
const errorBox = $<HTMLDivElement>('error');
const playButton = $<HTMLButtonElement>('play');
const wavButton = $<HTMLButtonElement>('wav');
const tension = $<HTMLInputElement>('tension');
const damping = $<HTMLInputElement>('damping');
const predictedText = $<HTMLElement>('predicted');
const examples = $<HTMLSelectElement>('examples');
const scope = $<HTMLCanvasElement>('scope');
const spectrum = $<HTMLCanvasElement>('spectrum');

const encoder = new TextEncoder();
const fileName = encoder.encode('model.toml');

let module: WebAssembly.Module;
let instance: WebAssembly.Instance;

/** The last text that loaded, with what the page knows of it. */
interface Checked {
  text: string;
  rate: number;
  frames: number;
  /** The analysis' lowest mode at the sliders' factors, Hz (NaN: none). */
  predicted: number;
  /** Output samples per pickup unit for live play. */
  gain: number;
  preview: Float32Array;
}
let checked: Checked | null = null;

/** The live audio graph while playing. */
interface Live {
  context: AudioContext;
  node: AudioWorkletNode;
  analyser: AnalyserNode;
  time: Float32Array<ArrayBuffer>;
  freq: Float32Array<ArrayBuffer>;
}
let live: Live | null = null;

function factors(): { tension: number; damping: number } {
  return { tension: Number(tension.value), damping: Number(damping.value) };
}

/** Loads `text` in the page's instance at the sliders' factors; the model or the error. */
function loadHere(text: string): HookeModel | HookeError {
  const model = HookeModel.load(instance, encoder.encode(text), fileName);
  if (model instanceof Uint8Array) return decodeError(model);
  const { tension: t, damping: d } = factors();
  const error = (t !== 1 ? model.setTension(t) : null) ?? (d !== 1 ? model.setDamping(d) : null);
  if (error !== null) {
    model.free();
    return decodeError(error);
  }
  return model;
}

/** Checks the editor's text: shows its error at its line and column, or takes it as the model. */
function check(): void {
  const text = editor.value;
  const model = loadHere(text);
  if (!(model instanceof HookeModel)) {
    showError(model);
    return;
  }
  const predicted = model.lowestFrequency();
  const preview = new Float32Array(PREVIEW_FRAMES);
  let failure: HookeError | null = null;
  for (let at = 0; at < PREVIEW_FRAMES && failure === null; at += model.maxFrames) {
    const n = Math.min(model.maxFrames, PREVIEW_FRAMES - at);
    const block = model.render(n);
    if (block === null) failure = decodeError(model.lastError());
    else preview.set(block.subarray(0, n), at);
  }
  const rate = model.rate;
  const frames = model.frames;
  let peak = maxAbs(preview);
  if (peak === 0 && model.pluck(0.3, PLUCK_AMPLITUDE) === null) {
    const block = model.render(Math.min(model.maxFrames, PREVIEW_FRAMES));
    peak = block === null ? 0 : maxAbs(block);
  }
  model.free();
  if (failure !== null) {
    showError(failure);
    return;
  }
  checked = { text, rate, frames, predicted, gain: peak > 0 ? LIVE_PEAK / peak : 1, preview };
  errorBox.className = 'ok';
  errorBox.textContent = `OK: ${rate} Hz, ${(frames / rate).toFixed(3)} s`;
  errorBox.removeAttribute('data-line');
  errorBox.removeAttribute('data-column');
  renderGutter(null);
  predictedText.textContent = Number.isFinite(predicted) ? `${predicted.toFixed(3)} Hz` : 'none';
  playButton.disabled = false;
  wavButton.disabled = false;
  if (live !== null) live.node.port.postMessage({ type: 'gain', value: checked.gain });
  else drawPreview();
}

function showError(error: HookeError): void {
  const where = error.line === null ? error.file : `${error.file}:${error.line}:${error.column}`;
  errorBox.className = 'bad';
  errorBox.textContent = `${where}: ${error.message}`;
  errorBox.dataset.line = String(error.line ?? '');
  errorBox.dataset.column = String(error.column ?? '');
  renderGutter(error.line);
}

function renderGutter(badLine: number | null): void {
  const lines = editor.value.split('\n').length;
  gutter.replaceChildren();
  for (let i = 1; i <= lines; i++) {
    const span = document.createElement('span');
    span.textContent = String(i);
    if (i === badLine) span.className = 'bad';
    gutter.append(span, '\n');
  }
  gutter.scrollTop = editor.scrollTop;
}

function maxAbs(samples: Float32Array): number {
  let peak = 0;
  for (const x of samples) peak = Math.max(peak, Math.abs(x));
  return peak;
}

/** The processor's options for the checked model at the sliders' factors. */
function processorOptions(model: Checked, gain: number) {
  const { tension: t, damping: d } = factors();
  return { module, text: encoder.encode(model.text), name: fileName, tension: t, damping: d, gain };
}

function makeNode(context: BaseAudioContext, model: Checked, gain: number): AudioWorkletNode {
  const node = new AudioWorkletNode(context, 'hooke', {
    numberOfInputs: 0,
    numberOfOutputs: 1,
    outputChannelCount: [1],
    processorOptions: processorOptions(model, gain),
  });
  node.port.onmessage = (event: MessageEvent<{ type: 'error'; error: Uint8Array }>) =>
    showError(decodeError(event.data.error));
  return node;
}

async function play(): Promise<void> {
  if (checked === null || live !== null) return;
  const context = new AudioContext({ sampleRate: checked.rate, latencyHint: 'interactive' });
  await context.audioWorklet.addModule('worklet.js');
  const node = makeNode(context, checked, checked.gain);
  const analyser = new AnalyserNode(context, { fftSize: 8192, smoothingTimeConstant: 0.5 });
  node.connect(analyser).connect(context.destination);
  const time = new Float32Array(analyser.fftSize);
  const freq = new Float32Array(analyser.frequencyBinCount);
  live = { context, node, analyser, time, freq };
  playButton.textContent = 'Stop';
  requestAnimationFrame(drawLive);
}

async function stop(): Promise<void> {
  if (live === null) return;
  const { context, node } = live;
  live = null;
  node.disconnect();
  await context.close();
  playButton.textContent = 'Play';
  drawPreview();
}

function drawLive(): void {
  if (live === null || checked === null) return;
  live.analyser.getFloatTimeDomainData(live.time);
  live.analyser.getFloatFrequencyData(live.freq);
  drawSignal(scope, live.time, live.context.sampleRate, 'output (live)');
  drawSpectrum(spectrum, live.freq, live.context.sampleRate, checked.predicted);
  requestAnimationFrame(drawLive);
}

function drawPreview(): void {
  if (checked === null) return;
  drawSignal(scope, checked.preview.subarray(0, 4096), checked.rate, 'pickup, channel 1 (first frames)');
  drawSpectrum(spectrum, spectrumDb(checked.preview), checked.rate, checked.predicted);
}

/** Renders the checked model for `seconds` (default: its [run]) through the AudioWorklet in an
 * OfflineAudioContext at the sliders' factors; the raw pickup samples (gain 1). */
async function renderOffline(seconds?: number): Promise<Float32Array> {
  if (checked === null) throw new Error('no model loaded');
  const duration = Math.min(seconds ?? checked.frames / checked.rate, MAX_RENDER_SECONDS);
  const frames = Math.max(1, Math.round(duration * checked.rate));
  const context = new OfflineAudioContext(1, frames, checked.rate);
  await context.audioWorklet.addModule('worklet.js');
  makeNode(context, checked, 1).connect(context.destination);
  const buffer = await context.startRendering();
  return buffer.getChannelData(0);
}

async function downloadWav(): Promise<void> {
  if (checked === null) return;
  const samples = await renderOffline();
  const peak = maxAbs(samples);
  const scale = peak > 0 ? 0.9 / peak : 1;
  const link = $<HTMLAnchorElement>('download');
  link.href = URL.createObjectURL(new Blob([encodeWav(samples, checked.rate, scale)], { type: 'audio/wav' }));
  link.download = 'hooke.wav';
  link.click();
}

function sendFactor(kind: 'tension' | 'damping', input: HTMLInputElement): void {
  $<HTMLOutputElement>(`${kind}-value`).value = Number(input.value).toFixed(2);
  if (live !== null) live.node.port.postMessage({ type: kind, value: Number(input.value) });
  check();
}

async function pluckKey(event: KeyboardEvent): Promise<void> {
  if (event.target === editor || event.repeat) return;
  const index = PLUCK_KEYS.indexOf(event.key.toLowerCase());
  if (index < 0 || checked === null) return;
  if (live === null) await play();
  live?.node.port.postMessage({ type: 'pluck', position: (index + 1) / (PLUCK_KEYS.length + 1), amplitude: PLUCK_AMPLITUDE });
}

async function loadExample(name: string): Promise<void> {
  const response = await fetch(`examples/${name}`);
  editor.value = await response.text();
  check();
}

async function start(): Promise<void> {
  module = await WebAssembly.compileStreaming(fetch('hooke_web.wasm'));
  instance = await WebAssembly.instantiate(module, {});
  const names = (await (await fetch('examples/index.json')).json()) as string[];
  for (const name of names) examples.add(new Option(name.replace(/\.toml$/, ''), name));
  let timer = 0;
  editor.addEventListener('input', () => {
    renderGutter(null);
    clearTimeout(timer);
    timer = window.setTimeout(check, CHECK_DELAY);
  });
  editor.addEventListener('scroll', () => (gutter.scrollTop = editor.scrollTop));
  examples.addEventListener('change', () => examples.value && loadExample(examples.value));
  playButton.addEventListener('click', () => (live === null ? play() : stop()));
  wavButton.addEventListener('click', downloadWav);
  tension.addEventListener('input', () => sendFactor('tension', tension));
  damping.addEventListener('input', () => sendFactor('damping', damping));
  document.addEventListener('keydown', pluckKey);
  $<HTMLButtonElement>('share').addEventListener('click', () => {
    history.replaceState(null, '', toShareHash(editor.value));
    $<HTMLInputElement>('share-url').value = location.href;
  });
  const shared = fromShareHash(location.hash);
  if (shared !== null) {
    editor.value = shared;
    check();
  } else {
    examples.value = 'plucked-string.toml';
    await loadExample('plucked-string.toml');
  }
}

/** What the browser tests read and drive (web/tests/). */
const ready = start();
Object.assign(window, {
  hooke: {
    ready,
    renderOffline,
    predicted: () => checked?.predicted ?? NaN,
    rate: () => checked?.rate ?? NaN,
    /** The largest |sample| the live analyser holds now (0 when stopped). */
    livePeak: () => {
      if (live === null) return 0;
      live.analyser.getFloatTimeDomainData(live.time);
      return maxAbs(live.time);
    },
    stop,
  },
});
