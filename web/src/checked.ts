// What the checker worker (checker.ts) and the page share: the messages between them and the
// figures both use.

import type { EngineChoice, HookeError } from './hooke';

/** Height of the pluck that sets the gain of a model at rest, m (the page's keys pluck so). */
export const PLUCK_AMPLITUDE = 1e-3;
/** The output rate an instrument is built for and played at unless the rate menu says, Hz. */
export const INSTRUMENT_RATE = 44100;
/** Length of an instrument's WAV render, s. */
export const INSTRUMENT_RENDER_SECONDS = 4;

/** The page's settings: factors on the model as loaded, where key plucks land, the scheme and
 * the rate. */
export interface Settings extends EngineChoice {
  /** On every stiffness (a string's frequencies go as its square root). */
  tension: number;
  /** On every damper and drag. */
  damping: number;
  /** On every mass (a string's frequencies go as 1 / its square root). */
  mass: number;
  /** Where a pluck lands, a fraction of the string's length (0 to 1). */
  pluck: number;
}

/** What the page asks: the module (first), then texts to check: a model or instrument file,
 * or a score against an instrument file. */
export type Request =
  | { module: WebAssembly.Module }
  | { id: number; text: string; settings: Settings }
  | { id: number; score: string; instrument: string; settings: Settings; render?: boolean };

/** What the drawing of a model needs. */
export interface Shape {
  /** Coordinates per node. */
  dimension: number;
  /** The masses (the first nodes; anchors follow). */
  masses: number;
  /** Two node numbers per link. */
  links: Uint32Array;
  /** Every node's position at the start, m (dimension numbers per node). */
  positions: Float64Array;
}

/** A checked file with what the page shows of it. */
export interface Checked {
  kind: 'model' | 'instrument';
  text: string;
  /** Output rate, Hz. */
  rate: number;
  /** The scheme's name ('' for an instrument's: the file's unless the menu says). */
  scheme: string;
  /** Frames a render gives (a model's [run]). */
  frames: number;
  /** The analysis' lowest vibrating mode at the sliders' factors, Hz (NaN: none). */
  predicted: number;
  /** Output samples per pickup unit for live play. */
  gain: number;
  /** Whether the model starts at rest (silent until plucked): renders pluck it first. */
  atRest: boolean;
  /** The first frames of channel 1 (a model at rest: after a pluck at the slider's position). */
  preview: Float32Array;
  /** The modes (4 numbers each: analog Hz, digital Hz, re z, im z); empty for an instrument. */
  modes: Float64Array;
  /** The model's drawing (null for an instrument). */
  shape: Shape | null;
}

/** A score checked against its instrument: the frames it lasts at `rate` Hz. */
export interface CheckedScore {
  frames: number;
  rate: number;
}

/** The answer to request `id`; a score asked to be rendered comes with its samples (the mean
 * of its two channels, full scale 1). */
export type Answer =
  | { id: number; checked: Checked }
  | { id: number; score: CheckedScore; samples?: Float32Array }
  | { id: number; error: HookeError };
