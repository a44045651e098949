// A mono WAV file (IEEE float, 32-bit) from samples.

/** The WAV file of `samples` times `scale` at `rate` Hz, mono, 32-bit float. */
export function encodeWav(samples: Float32Array, rate: number, scale: number): ArrayBuffer {
  const data = samples.length * 4;
  const buffer = new ArrayBuffer(44 + data);
  const view = new DataView(buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  text(0, 'RIFF');
  view.setUint32(4, 36 + data, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 3, true); // IEEE float
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, Math.round(rate), true);
  view.setUint32(28, Math.round(rate) * 4, true);
  view.setUint16(32, 4, true);
  view.setUint16(34, 32, true);
  text(36, 'data');
  view.setUint32(40, data, true);
  for (let i = 0; i < samples.length; i++) view.setFloat32(44 + 4 * i, samples[i] * scale, true);
  return buffer;
}
