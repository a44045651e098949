// The sound: worklet nodes (worklet.ts) made for a checked file at the page's settings, live in
// an AudioContext at the model's rate, or rendered in an OfflineAudioContext (a WAV, the
// tests). The page compiles the wasm module once; each node makes its own instance of it.

import type { Checked, Settings } from './checked';
import { PLUCK_AMPLITUDE } from './checked';
import type { Message, Options } from './worklet';

/** Longest offline render, s. */
export const MAX_RENDER_SECONDS = 30;
/** The sample rates Web Audio renders at, Hz (the AudioContext's range in the specification). */
const AUDIO_RATES = [3000, 768000];

const encoder = new TextEncoder();
const fileName = encoder.encode('model.toml');

/** The live audio graph while playing. */
export interface Live {
  context: AudioContext;
  node: AudioWorkletNode;
  analyser: AnalyserNode;
  time: Float32Array<ArrayBuffer>;
  freq: Float32Array<ArrayBuffer>;
  /** Whether the worklet has built its model and renders it. */
  ready: boolean;
}

/** A message from a worklet node. */
export type NodeMessage =
  | { type: 'error'; error: Uint8Array }
  | { type: 'ready' }
  | { type: 'positions'; positions: Float64Array }
  | { type: 'timing'; seconds: number; frames: number };

/** How long a render took in the worklet, from its first block to its last (the build left
 * out), and the frames it made. */
export interface Timing {
  seconds: number;
  frames: number;
}

let module: WebAssembly.Module;
let onMessage: (message: NodeMessage, live: boolean) => void = () => {};
/** The live graph, or null when stopped. */
export let live: Live | null = null;

/** Sets the compiled module every node instantiates, and the handler of the nodes' messages
 * (`live`: whether from the live node). */
export function setUp(compiled: WebAssembly.Module, handler: (message: NodeMessage, live: boolean) => void): void {
  module = compiled;
  onMessage = handler;
}

/** A worklet node playing `checked` at `settings` (a model scaled by `gain` and plucked first
 * if at rest; an instrument striking `notes` first). */
function makeNode(context: BaseAudioContext, checked: Checked, settings: Settings, gain: number, notes: number[] = []): AudioWorkletNode {
  const kind = checked.kind;
  const options: Options = {
    module,
    kind,
    text: encoder.encode(checked.text),
    name: fileName,
    // An instrument plays at the rate it was checked for (the menu's, or 44.1 kHz).
    settings: checked.kind === 'instrument' ? { ...settings, rate: checked.rate } : settings,
    gain,
    pluck: checked.kind === 'model' && checked.atRest ? settings.pluck : null,
    pluckAmplitude: PLUCK_AMPLITUDE,
    notes,
  };
  const node = new AudioWorkletNode(context, 'hooke', {
    numberOfInputs: 0,
    numberOfOutputs: 1,
    outputChannelCount: [kind === 'model' ? 1 : 2],
    processorOptions: options,
  });
  node.port.onmessage = (event: MessageEvent<NodeMessage>) => {
    const fromLive = live !== null && live.node === node;
    if (fromLive && event.data.type === 'ready') live!.ready = true;
    onMessage(event.data, fromLive);
  };
  return node;
}

/** Refuses a rate Web Audio cannot render at, naming it. */
function checkAudioRate(rate: number): void {
  if (!(rate >= AUDIO_RATES[0] && rate <= AUDIO_RATES[1])) {
    throw new Error(`the rate ${rate} Hz cannot be heard: Web Audio renders at ${AUDIO_RATES[0]} to ${AUDIO_RATES[1]} Hz ([run] rate)`);
  }
}

/** Plays `checked` live at `settings` (a model at rest is not plucked: keys pluck it). */
export async function play(checked: Checked, settings: Settings): Promise<void> {
  if (live !== null) return;
  checkAudioRate(checked.rate);
  const context = new AudioContext({ sampleRate: checked.rate, latencyHint: 'interactive' });
  await context.audioWorklet.addModule('worklet.js');
  const node = makeNode(context, { ...checked, atRest: false }, settings, checked.gain);
  const analyser = new AnalyserNode(context, { fftSize: 8192, smoothingTimeConstant: 0.5 });
  node.connect(analyser).connect(context.destination);
  const time = new Float32Array(analyser.fftSize);
  const freq = new Float32Array(analyser.frequencyBinCount);
  live = { context, node, analyser, time, freq, ready: false };
}

/** Stops live play. */
export async function stop(): Promise<void> {
  if (live === null) return;
  const { context, node } = live;
  live = null;
  node.disconnect();
  await context.close();
}

/** Sends `message` to the live node, if playing. */
export function send(message: Message): void {
  live?.node.port.postMessage(message);
}

/** Renders `checked` for `frames` frames through the worklet in an OfflineAudioContext: a
 * model's raw pickup samples (gain 1); an instrument, the mean of its two channels. */
async function renderFrames(checked: Checked, settings: Settings, frames: number, notes: number[]): Promise<Float32Array> {
  const stereo = checked.kind === 'instrument';
  const { buffer } = await renderBuffer(checked, settings, frames, notes);
  if (!stereo) return buffer.getChannelData(0);
  const [left, right] = [buffer.getChannelData(0), buffer.getChannelData(1)];
  return left.map((x, i) => 0.5 * (x + right[i]));
}

/** Renders `checked` for `frames` frames through the worklet in an OfflineAudioContext; the
 * rendered buffer and the node that made it. */
async function renderBuffer(checked: Checked, settings: Settings, frames: number, notes: number[]): Promise<{ buffer: AudioBuffer; node: AudioWorkletNode }> {
  checkAudioRate(checked.rate);
  const context = new OfflineAudioContext(checked.kind === 'instrument' ? 2 : 1, Math.max(1, frames), checked.rate);
  await context.audioWorklet.addModule('worklet.js');
  const node = makeNode(context, checked, settings, 1, notes);
  node.connect(context.destination);
  return { buffer: await context.startRendering(), node };
}

/** Renders `checked` for `seconds` as renderOffline does and asks the worklet how long its
 * blocks took (a benchmark: the instrument's or model's build is left out). */
export async function renderTiming(checked: Checked, settings: Settings, notes: number[], seconds: number): Promise<Timing> {
  const frames = Math.round(Math.min(seconds, MAX_RENDER_SECONDS) * checked.rate);
  const { node } = await renderBuffer(checked, settings, frames, checked.kind === 'instrument' ? notes : []);
  return new Promise((resolve) => {
    node.port.onmessage = (event: MessageEvent<NodeMessage>) => {
      if (event.data.type === 'timing') resolve({ seconds: event.data.seconds, frames: event.data.frames });
    };
    node.port.postMessage({ type: 'timing' });
  });
}

/** Renders `checked` for `seconds` (default: a model's [run], an instrument's 4 s; at most
 * MAX_RENDER_SECONDS) at `settings`: a model from its file's state (plucked at the slider's
 * position if at rest), an instrument striking `notes` at the start. */
export function renderOffline(checked: Checked, settings: Settings, notes: number[], seconds?: number): Promise<Float32Array> {
  const duration = Math.min(seconds ?? checked.frames / checked.rate, MAX_RENDER_SECONDS);
  const frames = Math.round(duration * checked.rate);
  return renderFrames(checked, settings, frames, checked.kind === 'instrument' ? notes : []);
}
