// The score editor: shown while an instrument is loaded, a score file (docs/score-format.md)
// checked against the instrument while typing (by the checker worker, which builds the
// instrument once), its error at its line and column; "Play score" has the checker render it on
// that instrument and plays the result.

import type { Checked, CheckedScore, Settings } from './checked';
import type { HookeError } from './hooke';
import { maxAbs } from './hooke';
import { CodeEditor } from './editor';

const section = document.getElementById('score-section') as HTMLElement;
const scores = document.getElementById('scores') as HTMLSelectElement;
const playButton = document.getElementById('play-score') as HTMLButtonElement;

/** The score files of the examples (examples/scores.json). */
let names: string[] = [];
/** The instrument the score is read against, and the score as last checked. */
let instrument: Checked | null = null;
let checked: CheckedScore | null = null;

/** What the score editor needs of the page. */
export interface Page {
  /** Sends a score to the checker (to be rendered too if `render`); returns the request's id. */
  request(score: string, instrument: string, render?: boolean): number;
  settings(): Settings;
  /** Shows a rendered score (the signal and its spectrum) at `rate` Hz. */
  show(samples: Float32Array, rate: number): void;
}
let page: Page;
let lastRequest = -1;
/** The render awaited, if any. */
let rendering: { id: number; done: (samples: Float32Array | HookeError) => void } | null = null;

export const scoreEditor = new CodeEditor('score-editor', 'score-gutter', 'score-error', check);

/** Lists the example scores and wires the controls. */
export async function setUpScores(pageHooks: Page): Promise<void> {
  page = pageHooks;
  names = (await (await fetch('examples/scores.json')).json()) as string[];
  for (const name of names) scores.add(new Option(name.replace(/^instruments\/|\.toml$/g, ''), name));
  scores.addEventListener('change', () => scores.value && loadScore(scores.value));
  playButton.addEventListener('click', () => playScore().catch((error) => showError(String(error))));
}

async function loadScore(name: string): Promise<void> {
  scores.value = name;
  scoreEditor.value = await (await fetch(`examples/${name}`)).text();
  check();
}

/** Shows the editor for `model` if it is an instrument (with the example score of `example`,
 * an instrument of the menu, when the editor is empty), hides it otherwise. */
export function showFor(model: Checked, example: string): void {
  section.hidden = model.kind !== 'instrument';
  if (model.kind !== 'instrument') {
    instrument = null;
    return;
  }
  const changed = instrument?.text !== model.text || instrument?.rate !== model.rate || instrument?.scheme !== model.scheme;
  instrument = model;
  const stem = example.replace(/\.toml$/, '');
  const match = names.find((n) => n.startsWith(`${stem}-phrase`)) ?? names.find((n) => n.startsWith(`${stem}-`));
  if (scoreEditor.value.trim() === '' && match !== undefined) loadScore(match);
  else if (changed && scoreEditor.value.trim() !== '') check();
}

function check(): void {
  if (instrument === null) return;
  checked = null;
  playButton.disabled = true;
  scoreEditor.showOk('checking the score (the first check builds the instrument)...', 'pending');
  lastRequest = page.request(scoreEditor.value, instrument.text);
}

/** The checker's answer to request `id`; false if it is not the score's last request. */
export function scoreAnswer(id: number, answer: { score: CheckedScore; samples?: Float32Array } | { error: HookeError }): boolean {
  if (id !== lastRequest) return false;
  if (rendering?.id === id) {
    rendering.done('error' in answer ? answer.error : (answer.samples ?? new Float32Array(0)));
    rendering = null;
    return true;
  }
  if ('error' in answer) {
    scoreEditor.showError(answer.error);
    return true;
  }
  checked = answer.score;
  playButton.disabled = false;
  scoreEditor.showOk(`OK: score, ${((checked.frames - 1) / checked.rate).toFixed(3)} s at ${checked.rate} Hz; Play score renders it`);
  return true;
}

function showError(message: string): void {
  scoreEditor.showError({ file: 'score.toml', line: null, column: null, message });
}

/** Renders the checked score and plays it; returns the samples (the mean of both channels). */
export async function playScore(): Promise<Float32Array> {
  if (instrument === null || checked === null) throw new Error('no score checked');
  const score = checked;
  playButton.disabled = true;
  const started = performance.now();
  try {
    const text = scoreEditor.value;
    const answer = await new Promise<Float32Array | HookeError>((done) => {
      lastRequest = page.request(text, (instrument as Checked).text, true);
      rendering = { id: lastRequest, done };
    });
    if (!(answer instanceof Float32Array)) {
      scoreEditor.showError(answer);
      throw new Error(answer.message);
    }
    const samples = answer;
    const seconds = (performance.now() - started) / 1000;
    const duration = samples.length / score.rate;
    scoreEditor.showOk(`rendered ${duration.toFixed(2)} s in ${seconds.toFixed(2)} s (${(duration / seconds).toFixed(1)}x real time), peak ${maxAbs(samples).toFixed(3)}; playing it normalised to 0.9`);
    page.show(samples, score.rate);
    const context = new AudioContext({ sampleRate: score.rate });
    const buffer = context.createBuffer(1, samples.length, score.rate);
    const peak = maxAbs(samples);
    const scale = peak > 0 ? 0.9 / peak : 1;
    buffer.getChannelData(0).set(samples.map((x) => x * scale));
    const player = new AudioBufferSourceNode(context, { buffer });
    player.connect(context.destination);
    player.onended = () => context.close();
    player.start();
    return samples;
  } finally {
    playButton.disabled = false;
  }
}
