// The playground page: the editor checked while typing (by the checker worker), play/stop
// through the AudioWorklet, the sliders and keys sent to it as engine events, the pictures, the
// examples, the share link and the WAV download. The page compiles the wasm module once; the
// checker and each AudioWorklet node make their own instance of it.

import type { Answer, Checked } from './checked';
import { PLUCK_AMPLITUDE } from './checked';
import { decodeError, HookeError } from './hooke';
import { drawPoles, drawSignal, drawSpectrum, drawWarping, spectrumDb } from './draw';
import { fromShareHash, toShareHash } from './share';
import { encodeWav } from './wav';

/** Milliseconds of quiet typing before the editor's text is checked. */
const CHECK_DELAY = 250;
/** The keys that pluck a model, from near one end of the string to near the other. */
const PLUCK_KEYS = 'asdfghjkl';
/** The keys that play an instrument, a piano's white and black keys from C4 (MIDI 60) to C5. */
const NOTE_KEYS = 'awsedftgyhujk';
/** The first note of NOTE_KEYS, MIDI. */
const FIRST_NOTE = 60;
/** The velocity of a key's note, MIDI (1 to 127). */
const NOTE_VELOCITY = 100;
/** The notes an instrument's WAV render strikes when none has been played: C4, E4, G4. */
const DEFAULT_CHORD = [60, 64, 67];

/** Longest offline render, s. */
const MAX_RENDER_SECONDS = 30;
/** The sample rates Web Audio renders at, Hz (the AudioContext's range in the specification). */
const AUDIO_RATES = [3000, 768000];

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
/** The checker worker (checker.ts): the page's thread never waits on the simulation. */
const checker = new Worker('checker.js');
/** The number of the last text sent to the checker. */
let lastRequest = 0;

/** The last text that loaded, with what the page knows of it. */
let checked: Checked | null = null;

/** The live audio graph while playing. */
interface Live {
  context: AudioContext;
  node: AudioWorkletNode;
  analyser: AnalyserNode;
  time: Float32Array<ArrayBuffer>;
  freq: Float32Array<ArrayBuffer>;
  /** Whether the worklet has built its model and renders it. */
  ready: boolean;
}
let live: Live | null = null;
/** The notes last played on an instrument (a WAV render strikes them). */
let lastNotes: number[] = [];

function factors(): { tension: number; damping: number } {
  return { tension: Number(tension.value), damping: Number(damping.value) };
}

/** Sends the editor's text to the checker, which answers with its error at its line and
 * column, or what the page shows of it (`answer`). */
function check(): void {
  const { tension, damping } = factors();
  lastRequest += 1;
  checker.postMessage({ id: lastRequest, text: editor.value, tension, damping });
}

/** The checker's answer: the error, or the file to play; an answer to an older text is dropped. */
function answer(event: MessageEvent<Answer>): void {
  const reply = event.data;
  if (reply.id !== lastRequest) return;
  if ('error' in reply) {
    showError(reply.error);
    return;
  }
  const model = reply.checked;
  const status =
    model.kind === 'model'
      ? `OK: model, ${model.rate} Hz, ${(model.frames / model.rate).toFixed(3)} s`
      : `OK: instrument, ${model.rate} Hz; keys A W S E D F T G Y H U J K play C4 to C5`;
  accept(model, status);
  if (live !== null && model.kind === 'model') live.node.port.postMessage({ type: 'gain', value: model.gain });
}

/** Takes `model` as the one to play and shows `status`. */
function accept(model: Checked, status: string): void {
  checked = model;
  errorBox.className = 'ok';
  errorBox.textContent = status;
  errorBox.removeAttribute('data-line');
  errorBox.removeAttribute('data-column');
  renderGutter(null);
  const predicted = model.predicted;
  predictedText.textContent = Number.isFinite(predicted) ? `${predicted.toFixed(3)} Hz` : 'none';
  $<HTMLElement>('hint').textContent =
    model.kind === 'model'
      ? 'Keys A S D F G H J K L pluck the string (a 1D model) from near one end to near the other.'
      : 'Keys A W S E D F T G Y H U J K play C4 to C5 (several at once); the sliders act on models only.';
  playButton.disabled = false;
  wavButton.disabled = false;
  drawPoles($<HTMLCanvasElement>('poles'), model.modes);
  drawWarping($<HTMLCanvasElement>('warping'), model.modes, model.rate);
  if (live === null) drawPreview();
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
function processorOptions(model: Checked, gain: number, notes: number[]) {
  const { tension: t, damping: d } = factors();
  const text = encoder.encode(model.text);
  return { module, kind: model.kind, text, name: fileName, tension: t, damping: d, gain, rate: model.rate, notes };
}

/** A worklet node playing `model` (an instrument striking `notes` first), with the page's
 * handler of its messages. */
function makeNode(context: BaseAudioContext, model: Checked, gain: number, notes: number[] = []): AudioWorkletNode {
  const node = new AudioWorkletNode(context, 'hooke', {
    numberOfInputs: 0,
    numberOfOutputs: 1,
    outputChannelCount: [model.kind === 'instrument' ? 2 : 1],
    processorOptions: processorOptions(model, gain, notes),
  });
  node.port.onmessage = (event: MessageEvent<{ type: 'error'; error: Uint8Array } | { type: 'ready' }>) => {
    if (event.data.type === 'error') showError(decodeError(event.data.error));
    else if (live !== null && live.node === node) live.ready = true;
  };
  return node;
}

/** Refuses a rate Web Audio cannot render at, naming it. */
function checkAudioRate(rate: number): void {
  if (!(rate >= AUDIO_RATES[0] && rate <= AUDIO_RATES[1])) {
    throw new Error(`the rate ${rate} Hz cannot be heard: Web Audio renders at ${AUDIO_RATES[0]} to ${AUDIO_RATES[1]} Hz ([run] rate)`);
  }
}

/** Runs `action`, showing what it throws as the file's error. */
async function reporting(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    showError({ file: 'model.toml', line: null, column: null, message: error instanceof Error ? error.message : String(error) });
  }
}

async function play(): Promise<void> {
  if (checked === null || live !== null) return;
  checkAudioRate(checked.rate);
  const context = new AudioContext({ sampleRate: checked.rate, latencyHint: 'interactive' });
  await context.audioWorklet.addModule('worklet.js');
  const node = makeNode(context, checked, checked.gain);
  const analyser = new AnalyserNode(context, { fftSize: 8192, smoothingTimeConstant: 0.5 });
  node.connect(analyser).connect(context.destination);
  const time = new Float32Array(analyser.fftSize);
  const freq = new Float32Array(analyser.frequencyBinCount);
  live = { context, node, analyser, time, freq, ready: false };
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
  if (checked.kind === 'instrument') {
    drawSignal(scope, new Float32Array(2), checked.rate, 'output: play to see it');
    drawSpectrum(spectrum, new Float32Array(2).fill(-300), checked.rate, NaN);
    return;
  }
  drawSignal(scope, checked.preview.subarray(0, 4096), checked.rate, 'pickup, channel 1 (first frames)');
  drawSpectrum(spectrum, spectrumDb(checked.preview), checked.rate, checked.predicted);
}

/** Renders the checked file for `seconds` (default: a model's [run], an instrument's 4 s)
 * through the AudioWorklet in an OfflineAudioContext: a model at the sliders' factors, its raw
 * pickup samples (gain 1); an instrument striking `notes` at the start, the mean of its two
 * channels. */
async function renderOffline(seconds?: number, notes: number[] = DEFAULT_CHORD): Promise<Float32Array> {
  if (checked === null) throw new Error('no model loaded');
  const duration = Math.min(seconds ?? checked.frames / checked.rate, MAX_RENDER_SECONDS);
  const frames = Math.max(1, Math.round(duration * checked.rate));
  const stereo = checked.kind === 'instrument';
  checkAudioRate(checked.rate);
  const context = new OfflineAudioContext(stereo ? 2 : 1, frames, checked.rate);
  await context.audioWorklet.addModule('worklet.js');
  makeNode(context, checked, 1, stereo ? notes : []).connect(context.destination);
  const buffer = await context.startRendering();
  if (!stereo) return buffer.getChannelData(0);
  const [left, right] = [buffer.getChannelData(0), buffer.getChannelData(1)];
  return left.map((x, i) => 0.5 * (x + right[i]));
}

async function downloadWav(): Promise<void> {
  if (checked === null) return;
  const samples = await renderOffline(undefined, lastNotes.length > 0 ? lastNotes : DEFAULT_CHORD);
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

/** A key down: a model's pluck, or an instrument's note (starting playback if stopped). */
async function keyDown(event: KeyboardEvent): Promise<void> {
  if (event.target === editor || event.repeat || checked === null) return;
  const key = event.key.toLowerCase();
  if (checked.kind === 'model') {
    const index = PLUCK_KEYS.indexOf(key);
    if (index < 0) return;
    if (live === null) await reporting(play);
    const position = (index + 1) / (PLUCK_KEYS.length + 1);
    live?.node.port.postMessage({ type: 'pluck', position, amplitude: PLUCK_AMPLITUDE });
    return;
  }
  const index = NOTE_KEYS.indexOf(key);
  if (index >= 0) await playNote(FIRST_NOTE + index, NOTE_VELOCITY);
}

/** An instrument's MIDI note pressed (`velocity` 1 to 127, starting playback if stopped) or
 * lifted (0). */
async function playNote(note: number, velocity: number): Promise<void> {
  if (checked?.kind !== 'instrument') return;
  if (velocity > 0) {
    if (live === null) await reporting(play);
    lastNotes = [...lastNotes.filter((n) => n !== note), note].slice(-6);
  }
  live?.node.port.postMessage({ type: 'note', note, velocity });
}

/** A MIDI message: note on and note off (any channel) play the instrument. */
function midiMessage(data: Uint8Array): void {
  if (data.length < 3) return;
  const kind = data[0] & 0xf0;
  if (kind === 0x90) playNote(data[1], data[2]);
  else if (kind === 0x80) playNote(data[1], 0);
}

/** Listens to every MIDI input (Web MIDI), now and as devices come and go. */
async function enableMidi(): Promise<void> {
  const access = await navigator.requestMIDIAccess();
  const listen = () => {
    for (const input of access.inputs.values()) {
      input.onmidimessage = (event) => event.data && midiMessage(event.data);
    }
    $<HTMLButtonElement>('midi').textContent = `MIDI: ${access.inputs.size} input(s)`;
  };
  listen();
  access.onstatechange = listen;
}

/** A key up: an instrument's note lifted. */
function keyUp(event: KeyboardEvent): void {
  const index = NOTE_KEYS.indexOf(event.key.toLowerCase());
  if (event.target !== editor && index >= 0) playNote(FIRST_NOTE + index, 0);
}

async function loadExample(name: string): Promise<void> {
  const response = await fetch(`examples/${name}`);
  editor.value = await response.text();
  check();
}

async function start(): Promise<void> {
  module = await WebAssembly.compileStreaming(fetch('hooke_web.wasm'));
  checker.onmessage = answer;
  checker.postMessage({ module });
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
  playButton.addEventListener('click', () => reporting(live === null ? play : stop));
  wavButton.addEventListener('click', () => reporting(downloadWav));
  $<HTMLButtonElement>('midi').addEventListener('click', () => reporting(enableMidi));
  tension.addEventListener('input', () => sendFactor('tension', tension));
  damping.addEventListener('input', () => sendFactor('damping', damping));
  document.addEventListener('keydown', keyDown);
  document.addEventListener('keyup', keyUp);
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
    /** Plays a MIDI message (bytes) as an input of Web MIDI does. */
    midi: (bytes: number[]) => midiMessage(Uint8Array.from(bytes)),
    /** Whether the live worklet has built its model and renders it. */
    liveReady: () => live?.ready ?? false,
    livePeak: () => {
      if (live === null) return 0;
      live.analyser.getFloatTimeDomainData(live.time);
      return maxAbs(live.time);
    },
    stop,
  },
});
