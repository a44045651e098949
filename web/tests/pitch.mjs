// The fundamental of a recording, measured independently of the page's code: the peak of the
// Hann-windowed spectrum (zero-padded to 2^20 points) within 20% of an expected frequency,
// refined by a parabola through the log magnitudes of the peak bin and its neighbours; and the
// level of such a peak (a harmonic's), in dB.

const SIZE = 1 << 20;

/** The frequency (Hz) of the spectral peak of `samples` (at `rate` Hz) nearest `near` Hz. */
export function fundamental(samples, rate, near) {
  const { best, power, bin } = peak(samples, rate, near);
  const [a, b, c] = [power(best - 1), power(best), power(best + 1)];
  const offset = (0.5 * (a - c)) / (a - 2 * b + c);
  return (best + offset) * bin;
}

/** The level (dB, of the power spectrum) of the spectral peak of `samples` (at `rate` Hz)
 * within 20% of `near` Hz. */
export function peakDb(samples, rate, near) {
  const { best, power } = peak(samples, rate, near);
  return (10 * power(best)) / Math.LN10;
}

/** The bin of the largest power within 20% of `near` Hz, the log power of any bin, and the
 * bin width (Hz). */
function peak(samples, rate, near) {
  const re = new Float64Array(SIZE);
  const im = new Float64Array(SIZE);
  const n = Math.min(samples.length, SIZE);
  for (let i = 0; i < n; i++) re[i] = samples[i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  transform(re, im);
  const bin = rate / SIZE;
  const power = (k) => Math.log(re[k] * re[k] + im[k] * im[k] + 1e-300);
  let best = Math.ceil((0.8 * near) / bin);
  for (let k = best; k <= Math.floor((1.2 * near) / bin); k++) if (power(k) > power(best)) best = k;
  return { best, power, bin };
}

/** In-place iterative radix-2 complex FFT. */
function transform(re, im) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i]; re[i] = re[j]; re[j] = t;
      t = im[i]; im[i] = im[j]; im[j] = t;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const angle = (-2 * Math.PI) / size;
    const [wr, wi] = [Math.cos(angle), Math.sin(angle)];
    for (let start = 0; start < n; start += size) {
      let [cr, ci] = [1, 0];
      for (let k = 0; k < half; k++) {
        const a = start + k;
        const b = a + half;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        [cr, ci] = [cr * wr - ci * wi, cr * wi + ci * wr];
      }
    }
  }
}
