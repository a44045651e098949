// The playground page: the model editor checked while typing (by the checker worker), play/stop
// through the AudioWorklet (audio.ts), the sliders and menus sent to it between blocks, keys and
// MIDI, the pictures (signal, spectrum with the predicted modes, poles, warping, the model in
// motion), the score editor (score-editor.ts), the examples, the share link and the WAV download.

import type { Answer, Checked, Settings } from './checked';
import { PLUCK_AMPLITUDE } from './checked';
import { decodeError, HookeError, maxAbs, schemeNames } from './hooke';
import * as audio from './audio';
import type { NodeMessage } from './audio';
import { CodeEditor } from './editor';
import { drawPoles, drawSignal, drawSpectrum, drawWarping, frame, spectrumDb } from './draw';
import { drawModel } from './view';
import { playScore, scoreAnswer, setUpScores, showFor } from './score-editor';
import { fromShareHash, toShareHash } from './share';
import { encodeWav } from './wav';

/** The keys that pluck a model, at 0.1 to 0.9 of the string (moving the pluck slider there). */
const PLUCK_KEYS = 'asdfghjkl';
/** The keys that play an instrument, a piano's white and black keys from C4 (MIDI 60) to C5. */
const NOTE_KEYS = 'awsedftgyhujk';
/** The first note of NOTE_KEYS, MIDI. */
const FIRST_NOTE = 60;
/** The velocity of a key's note, MIDI (1 to 127). */
const NOTE_VELOCITY = 100;
/** The notes an instrument's WAV render strikes when none has been played: C4, E4, G4. */
const DEFAULT_CHORD = [60, 64, 67];
/** Milliseconds between two readings of the live model's positions (the drawing). */
const POSITIONS_EVERY = 66;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const playButton = $<HTMLButtonElement>('play');
const wavButton = $<HTMLButtonElement>('wav');
const sliders = ['tension', 'damping', 'mass', 'pluck'] as const;
const schemeSelect = $<HTMLSelectElement>('scheme');
const rateSelect = $<HTMLSelectElement>('rate');
const examples = $<HTMLSelectElement>('examples');
const scope = $<HTMLCanvasElement>('scope');
const spectrum = $<HTMLCanvasElement>('spectrum');
const modelView = $<HTMLCanvasElement>('model-view');

const editor = new CodeEditor('editor', 'gutter', 'error', check);
/** The checker worker (checker.ts): the page's thread never waits on the simulation. */
const checker = new Worker('checker.js');
/** The number of the last request to the checker, and of the last model text sent. */
let lastRequest = 0;
let lastModelRequest = 0;
/** The last text that loaded, with what the page knows of it. */
let checked: Checked | null = null;
/** The notes last played on an instrument (a WAV render strikes them). */
let lastNotes: number[] = [];
/** Whether playback restarts once the next check answers (a new rate or an instrument's scheme). */
let restart = false;
/** When the live positions were last asked for, ms, and whether an answer is awaited. */
let positionsAsked = 0;
let positionsPending = false;

function settings(): Settings {
  const value = (id: string) => Number($<HTMLInputElement>(id).value);
  const scheme = schemeSelect.value === '' ? -1 : Number(schemeSelect.value);
  return { tension: value('tension'), damping: value('damping'), mass: value('mass'), pluck: value('pluck'), scheme, rate: Number(rateSelect.value) };
}

/** Sends the editor's text to the checker at the page's settings. */
function check(): void {
  lastRequest += 1;
  lastModelRequest = lastRequest;
  checker.postMessage({ id: lastRequest, text: editor.value, settings: settings() });
}

/** The checker's answer: the error, or the file (or score) to play; older answers are dropped. */
function answer(event: MessageEvent<Answer>): void {
  const reply = event.data;
  if ('score' in reply || reply.id !== lastModelRequest) {
    scoreAnswer(reply.id, reply as Parameters<typeof scoreAnswer>[1]);
    return;
  }
  if ('error' in reply) {
    editor.showError(reply.error);
    return;
  }
  accept(reply.checked);
}

/** Takes `model` as the one to play. */
function accept(model: Checked): void {
  checked = model;
  const at = `${model.scheme || 'its scheme'} at ${model.rate} Hz`;
  editor.showOk(
    model.kind === 'model'
      ? `OK: model, ${at}, ${(model.frames / model.rate).toFixed(3)} s`
      : `OK: instrument, ${at}; keys A W S E D F T G Y H U J K play C4 to C5`,
  );
  const predicted = model.predicted;
  $<HTMLElement>('predicted').textContent = Number.isFinite(predicted) ? `${predicted.toFixed(3)} Hz` : 'none';
  $<HTMLElement>('hint').textContent =
    model.kind === 'model'
      ? 'Keys A S D F G H J K L pluck the string (a 1D model) at 0.1 to 0.9 of its length; Space plucks at the slider.'
      : 'Keys A W S E D F T G Y H U J K play C4 to C5 (several at once); the sliders act on models only.';
  playButton.disabled = false;
  wavButton.disabled = false;
  drawPoles($<HTMLCanvasElement>('poles'), model.modes, model.scheme);
  drawWarping($<HTMLCanvasElement>('warping'), model.modes, model.rate, model.scheme);
  showFor(model, examples.value);
  if (audio.live === null) drawStopped();
  else if (model.kind === 'model') audio.send({ type: 'gain', value: model.gain });
  if (restart) {
    restart = false;
    reporting(play);
  }
}

function showError(error: HookeError): void {
  editor.showError(error);
}

/** Runs `action`, showing what it throws as the file's error. */
async function reporting(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    showError({ file: 'model.toml', line: null, column: null, message: error instanceof Error ? error.message : String(error) });
  }
}

/** A message from a worklet node: its error, or the live model's positions. */
function nodeMessage(message: NodeMessage, live: boolean): void {
  if (message.type === 'error') showError(decodeError(message.error));
  else if (message.type === 'positions' && live && checked?.shape) {
    positionsPending = false;
    drawModel(modelView, checked.shape, message.positions, 'the model now (live)');
  }
}

async function play(): Promise<void> {
  if (checked === null || audio.live !== null) return;
  await audio.play(checked, settings());
  playButton.textContent = 'Stop';
  positionsPending = false;
  requestAnimationFrame(drawLive);
}

async function stop(): Promise<void> {
  await audio.stop();
  playButton.textContent = 'Play';
  drawStopped();
}

function drawLive(now: number): void {
  const live = audio.live;
  if (live === null || checked === null) return;
  live.analyser.getFloatTimeDomainData(live.time);
  live.analyser.getFloatFrequencyData(live.freq);
  drawSignal(scope, live.time, live.context.sampleRate, 'output (live)');
  drawSpectrum(spectrum, live.freq, live.context.sampleRate, checked.predicted, checked.modes);
  if (checked.shape !== null && !positionsPending && now - positionsAsked > POSITIONS_EVERY) {
    positionsAsked = now;
    positionsPending = true;
    audio.send({ type: 'positions' });
  }
  requestAnimationFrame(drawLive);
}

function drawStopped(): void {
  if (checked === null) return;
  if (checked.kind === 'instrument') {
    drawSignal(scope, new Float32Array(2), checked.rate, 'output: play to see it');
    frame(spectrum, 'spectrum: play to see it');
    const g = frame(modelView, 'the model in motion');
    g.fillStyle = '#777';
    g.textAlign = 'center';
    g.fillText('An instrument: the model in motion is drawn for model files (their masses and links).', modelView.width / 2, modelView.height / 2);
    g.textAlign = 'start';
    return;
  }
  const title = checked.atRest ? `pickup, channel 1, plucked at ${settings().pluck}` : 'pickup, channel 1 (first frames)';
  drawSignal(scope, checked.preview.subarray(0, 4096), checked.rate, title);
  drawSpectrum(spectrum, spectrumDb(checked.preview), checked.rate, checked.predicted, checked.modes);
  if (checked.shape !== null) drawModel(modelView, checked.shape, checked.shape.positions, 'the model at the start (Play to see it move)');
}

/** Renders the checked file offline for `seconds` at the page's settings and times the
 * worklet's blocks (see audio.renderTiming). */
function renderTiming(seconds: number, notes: number[] = DEFAULT_CHORD): Promise<audio.Timing> {
  if (checked === null) return Promise.reject(new Error('nothing checked to render'));
  return audio.renderTiming(checked, settings(), notes, seconds);
}

/** Renders the checked file offline at the page's settings (see audio.renderOffline). */
function renderOffline(seconds?: number, notes: number[] = DEFAULT_CHORD): Promise<Float32Array> {
  if (checked === null) throw new Error('no model loaded');
  return audio.renderOffline(checked, settings(), notes, seconds);
}

async function downloadWav(): Promise<void> {
  if (checked === null) return;
  const samples = await renderOffline(undefined, lastNotes.length > 0 ? lastNotes : DEFAULT_CHORD);
  const peak = maxAbs(samples);
  const link = $<HTMLAnchorElement>('download');
  link.href = URL.createObjectURL(new Blob([encodeWav(samples, checked.rate, peak > 0 ? 0.9 / peak : 1)], { type: 'audio/wav' }));
  link.download = 'hooke.wav';
  link.click();
}

/** A slider moved: its value shown, sent to the live model (a factor), and the text checked
 * again (the prediction, the preview). */
function slider(kind: (typeof sliders)[number]): void {
  const value = Number($<HTMLInputElement>(kind).value);
  $<HTMLOutputElement>(`${kind}-value`).value = value.toFixed(2);
  if (kind !== 'pluck' && checked?.kind === 'model') audio.send({ type: kind, value });
  check();
}

/** The scheme or the rate chosen: a model playing goes on at them from its state now (a rate
 * restarts the audio, whose rate is fixed); the pictures follow the check. */
function engineChoice(rateChanged: boolean): void {
  const { scheme, rate } = settings();
  if (audio.live !== null) {
    if (rateChanged || checked?.kind !== 'model') {
      restart = true;
      stop();
    } else {
      audio.send({ type: 'configure', scheme, rate });
    }
  }
  check();
}

/** Plucks the live model at `position` (starting playback if stopped). */
async function pluck(position: number): Promise<void> {
  if (audio.live === null) await reporting(play);
  audio.send({ type: 'pluck', position, amplitude: PLUCK_AMPLITUDE });
}

/** A key down: a model's pluck, or an instrument's note (starting playback if stopped). */
async function keyDown(event: KeyboardEvent): Promise<void> {
  const target = event.target as HTMLElement;
  if (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || event.repeat || checked === null) return;
  const key = event.key.toLowerCase();
  if (checked.kind === 'model') {
    const index = PLUCK_KEYS.indexOf(key);
    if (key === ' ') {
      event.preventDefault();
      await pluck(settings().pluck);
    } else if (index >= 0) {
      const position = (index + 1) / (PLUCK_KEYS.length + 1);
      $<HTMLInputElement>('pluck').value = String(position);
      $<HTMLOutputElement>('pluck-value').value = position.toFixed(2);
      await pluck(position);
    }
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
    if (audio.live === null) await reporting(play);
    lastNotes = [...lastNotes.filter((n) => n !== note), note].slice(-6);
  }
  audio.send({ type: 'note', note, velocity });
}

/** A MIDI message: note on and off, the sustain pedal and pitch bend (any channel) play the
 * instrument; a note on starts playback if stopped. */
function midiMessage(data: Uint8Array): void {
  const kind = data[0] & 0xf0;
  if (kind === 0x90 && data[2] > 0) playNote(data[1], data[2]);
  else if (kind === 0x80 || kind === 0x90) playNote(data[1], 0);
  else if ((kind === 0xb0 || kind === 0xe0) && checked?.kind === 'instrument') audio.send({ type: 'midi', bytes: Array.from(data) });
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
  const target = event.target as HTMLElement;
  if (target.tagName !== 'TEXTAREA' && index >= 0) playNote(FIRST_NOTE + index, 0);
}

async function loadExample(name: string): Promise<void> {
  editor.value = await (await fetch(`examples/${name}`)).text();
  check();
}

async function start(): Promise<void> {
  const module = await WebAssembly.compileStreaming(fetch('hooke_web.wasm'));
  audio.setUp(module, nodeMessage);
  checker.onmessage = answer;
  checker.postMessage({ module });
  const names = (await (await fetch('examples/index.json')).json()) as string[];
  for (const name of names) examples.add(new Option(name.replace(/\.toml$/, ''), name));
  schemeNames(new WebAssembly.Instance(module, {})).forEach((name, i) => schemeSelect.add(new Option(name, String(i))));
  await setUpScores({
    request: (score, instrument, render) => {
      lastRequest += 1;
      checker.postMessage({ id: lastRequest, score, instrument, settings: settings(), render });
      return lastRequest;
    },
    settings,
    show: (samples, rate) => {
      drawSignal(scope, samples, rate, 'the score, rendered');
      drawSpectrum(spectrum, spectrumDb(samples), rate, NaN, new Float64Array(0));
    },
  });
  examples.addEventListener('change', () => examples.value && loadExample(examples.value));
  playButton.addEventListener('click', () => reporting(audio.live === null ? play : stop));
  wavButton.addEventListener('click', () => reporting(downloadWav));
  $<HTMLButtonElement>('midi').addEventListener('click', () => reporting(enableMidi));
  $<HTMLButtonElement>('pluck-now').addEventListener('click', () => reporting(() => pluck(settings().pluck)));
  for (const kind of sliders) $<HTMLInputElement>(kind).addEventListener('input', () => slider(kind));
  schemeSelect.addEventListener('change', () => engineChoice(false));
  rateSelect.addEventListener('change', () => engineChoice(true));
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
    renderTiming,
    playScore,
    predicted: () => checked?.predicted ?? NaN,
    rate: () => checked?.rate ?? NaN,
    /** The checked model's modes: 4 numbers each (analog Hz, digital Hz, re z, im z). */
    modes: () => Array.from(checked?.modes ?? []),
    /** Plays a MIDI message (bytes) as an input of Web MIDI does. */
    midi: (bytes: number[]) => midiMessage(Uint8Array.from(bytes)),
    /** Whether the live worklet has built its model and renders it. */
    liveReady: () => audio.live?.ready ?? false,
    /** The largest |sample| the live analyser holds now (0 when stopped). */
    livePeak: () => {
      const live = audio.live;
      if (live === null) return 0;
      live.analyser.getFloatTimeDomainData(live.time);
      return maxAbs(live.time);
    },
    stop,
  },
});
