// What the checker worker (checker.ts) and the page (main.ts) share: the messages between them
// and the figures both use.

import type { HookeError } from './hooke';

/** Height of the pluck that sets the gain of a model at rest, m (the page's keys pluck so). */
export const PLUCK_AMPLITUDE = 1e-3;
/** The output rate an instrument is built for and played at, Hz. */
export const INSTRUMENT_RATE = 44100;
/** Length of an instrument's WAV render, s. */
export const INSTRUMENT_RENDER_SECONDS = 4;

/** What the page asks: the module (first), then texts to check. */
export type Request = { module: WebAssembly.Module } | { id: number; text: string; tension: number; damping: number };

/** A checked file with what the page shows of it. */
export interface Checked {
  kind: 'model' | 'instrument';
  text: string;
  /** Output rate, Hz. */
  rate: number;
  /** Frames a render gives (a model's [run]). */
  frames: number;
  /** The analysis' lowest vibrating mode at the sliders' factors, Hz (NaN: none). */
  predicted: number;
  /** Output samples per pickup unit for live play. */
  gain: number;
  /** The first frames of channel 1. */
  preview: Float32Array;
  /** The modes (4 numbers each: analog Hz, digital Hz, re z, im z); empty for an instrument. */
  modes: Float64Array;
}

/** The answer to request `id`. */
export type Answer = { id: number; checked: Checked } | { id: number; error: HookeError };

