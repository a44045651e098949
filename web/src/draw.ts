// The pictures: the pickup signal against time and its spectrum in dB against frequency, with
// the analysis' modes marked; the scheme's poles in the z-plane and its warping.

/** Spectrum in dB (Hann window, |FFT|^2, bins 0 to n/2 - 1) of the first n frames of
 * `samples`, n the largest power of two that fits. */
export function spectrumDb(samples: Float32Array): Float32Array {
  let n = 1;
  while (n * 2 <= samples.length) n *= 2;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < n; i++) re[i] = samples[i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  fft(re, im);
  const db = new Float32Array(n / 2);
  for (let k = 0; k < n / 2; k++) db[k] = 10 * Math.log10(re[k] * re[k] + im[k] * im[k] + 1e-30);
  return db;
}

/** In-place radix-2 FFT (the length a power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let size = 2; size <= n; size *= 2) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

/** Clears `canvas` to white with `title` at its top left; its drawing context. */
export function frame(canvas: HTMLCanvasElement, title: string): CanvasRenderingContext2D {
  const g = canvas.getContext('2d') as CanvasRenderingContext2D;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#333';
  g.font = '12px sans-serif';
  g.fillText(title, 8, 14);
  return g;
}

/** The signal `samples` (any units, scaled to the peak) against time at `rate` Hz. */
export function drawSignal(canvas: HTMLCanvasElement, samples: Float32Array, rate: number, title: string): void {
  const g = frame(canvas, `${title}: ${((samples.length / rate) * 1000).toFixed(1)} ms`);
  const { width, height } = canvas;
  let peak = 0;
  for (const x of samples) peak = Math.max(peak, Math.abs(x));
  const mid = height / 2 + 8;
  const scale = peak > 0 ? (height / 2 - 14) / peak : 0;
  g.strokeStyle = '#ccc';
  g.beginPath();
  g.moveTo(0, mid);
  g.lineTo(width, mid);
  g.stroke();
  g.strokeStyle = '#1a5fb4';
  g.beginPath();
  for (let i = 0; i < samples.length; i++) {
    const x = (i / (samples.length - 1)) * width;
    const y = mid - samples[i] * scale;
    if (i === 0) g.moveTo(x, y);
    else g.lineTo(x, y);
  }
  g.stroke();
}

/** The spectrum `db` (bins 0 to Nyquist at `rate` Hz) with every mode's digital frequency of
 * `modes` marked (4 numbers per mode, the digital frequency second; light red) and the lowest
 * vibrating mode `predicted` (Hz; red); shown up to 12 times the predicted frequency, or 5 kHz
 * without one. */
export function drawSpectrum(canvas: HTMLCanvasElement, db: Float32Array, rate: number, predicted: number, modes: Float64Array): void {
  const nyquist = rate / 2;
  const top = Math.min(nyquist, Number.isFinite(predicted) ? Math.max(12 * predicted, 200) : 5000);
  const label = Number.isFinite(predicted) ? `lowest mode ${predicted.toFixed(2)} Hz` : 'no vibrating mode';
  let shown = 0;
  for (let i = 1; i < modes.length; i += 4) if (modes[i] > 0 && modes[i] <= top) shown++;
  const marks = modes.length === 0 ? '' : ` (red: ${label}; light red: ${shown} predicted modes)`;
  const g = frame(canvas, `spectrum, 0 to ${top.toFixed(0)} Hz, 80 dB range${marks}`);
  const { width, height } = canvas;
  const bins = Math.max(2, Math.floor((db.length * top) / nyquist));
  let peak = -Infinity;
  for (let k = 0; k < bins; k++) peak = Math.max(peak, db[k]);
  const y = (value: number) => 20 + ((peak - value) / 80) * (height - 24);
  const mark = (hz: number, colour: string) => {
    const x = (hz / top) * width;
    g.strokeStyle = colour;
    g.beginPath();
    g.moveTo(x, 18);
    g.lineTo(x, height);
    g.stroke();
  };
  for (let i = 1; i < modes.length; i += 4) if (modes[i] > 0 && modes[i] <= top) mark(modes[i], '#f0a0a0');
  if (Number.isFinite(predicted)) mark(predicted, '#c01c28');
  g.strokeStyle = '#26a269';
  g.beginPath();
  for (let k = 0; k < bins; k++) {
    const px = (k / bins) * width;
    const py = Math.min(height, y(db[k]));
    if (k === 0) g.moveTo(px, py);
    else g.lineTo(px, py);
  }
  g.stroke();
}

/** The discrete poles (`modes`: 4 numbers per mode, analog Hz, digital Hz, re z, im z) in the
 * z-plane with the unit circle: each pole and its conjugate. */
export function drawPoles(canvas: HTMLCanvasElement, modes: Float64Array, scheme: string): void {
  const g = frame(canvas, modes.length === 0 ? 'z-plane (model files)' : `z-plane: ${modes.length / 4} poles of ${scheme} (and conjugates)`);
  const { width, height } = canvas;
  const [cx, cy, r] = [width / 2, height / 2 + 8, Math.min(width, height - 20) / 2 - 12];
  g.strokeStyle = '#ccc';
  g.beginPath();
  g.moveTo(cx - r - 8, cy);
  g.lineTo(cx + r + 8, cy);
  g.moveTo(cx, cy - r - 8);
  g.lineTo(cx, cy + r + 8);
  g.stroke();
  g.strokeStyle = '#888';
  g.beginPath();
  g.arc(cx, cy, r, 0, 2 * Math.PI);
  g.stroke();
  for (let i = 0; i < modes.length; i += 4) {
    const [re, im] = [modes[i + 2], modes[i + 3]];
    g.fillStyle = Math.hypot(re, im) > 1 + 1e-9 ? '#c01c28' : '#1a5fb4';
    for (const y of [im, -im]) g.fillRect(cx + re * r - 2, cy - y * r - 2, 4, 4);
  }
}

/** The warping: each mode's digital frequency over its analog frequency against the analog
 * frequency, up to the Nyquist frequency of `rate` Hz. */
export function drawWarping(canvas: HTMLCanvasElement, modes: Float64Array, rate: number, scheme: string): void {
  let [low, high] = [1, 1];
  for (let i = 0; i < modes.length; i += 4) {
    if (modes[i] > 0) {
      const ratio = modes[i + 1] / modes[i];
      [low, high] = [Math.min(low, ratio), Math.max(high, ratio)];
    }
  }
  const span = Math.max(high - low, 1e-6);
  const title = modes.length === 0 ? 'warping (model files)' : `${scheme} warping f_d/f_a: ${low.toFixed(4)} to ${high.toFixed(4)}`;
  const g = frame(canvas, title);
  const { width, height } = canvas;
  const x = (hz: number) => 8 + (hz / (rate / 2)) * (width - 16);
  const y = (ratio: number) => height - 8 - ((ratio - low) / span) * (height - 36);
  g.strokeStyle = '#ccc';
  g.beginPath();
  g.moveTo(8, y(1));
  g.lineTo(width - 8, y(1));
  g.stroke();
  g.fillStyle = '#1a5fb4';
  for (let i = 0; i < modes.length; i += 4) {
    if (modes[i] > 0) g.fillRect(x(modes[i]) - 2, y(modes[i + 1] / modes[i]) - 2, 4, 4);
  }
  g.fillStyle = '#333';
  g.fillText('0 Hz', 8, height - 12);
  g.fillText(`${(rate / 2).toFixed(0)} Hz`, width - 60, height - 12);
}
