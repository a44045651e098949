// The model drawn from its nodes' positions: masses as dots, anchors as squares, links as lines.
// A 1D model's positions are displacements: its masses are laid out in file order across the
// picture (each anchor at the end nearer the masses it holds) and drawn at their displacement,
// scaled to the largest. A 2D model is drawn as it is (a 3D one seen along z), in a frame that
// grows to hold every position it has shown.

import type { Shape } from './checked';
import { frame } from './draw';

/** The frame of a 2D drawing: the box of every position shown since the model was loaded. */
let seen: { links: Uint32Array; box: number[] } = { links: new Uint32Array(0), box: [Infinity, Infinity, -Infinity, -Infinity] };

/** Draws the model `shape` at `positions` (m; dimension numbers per node), titled `title`. */
export function drawModel(canvas: HTMLCanvasElement, shape: Shape, positions: Float64Array, title: string): void {
  const g = frame(canvas, title);
  const { width, height } = canvas;
  const nodes = positions.length / shape.dimension;
  const place = shape.dimension === 1 ? placeAcross(shape, positions, width, height) : placeInFrame(shape, positions, width, height);
  g.strokeStyle = '#888';
  g.lineWidth = 1.5;
  g.beginPath();
  for (let l = 0; l < shape.links.length; l += 2) {
    const [a, b] = [place(shape.links[l]), place(shape.links[l + 1])];
    g.moveTo(a[0], a[1]);
    g.lineTo(b[0], b[1]);
  }
  g.stroke();
  const radius = Math.max(1.5, Math.min(5, 300 / Math.max(1, shape.masses)));
  for (let n = 0; n < nodes; n++) {
    const [x, y] = place(n);
    if (n < shape.masses) {
      g.fillStyle = '#1a5fb4';
      g.beginPath();
      g.arc(x, y, radius, 0, 2 * Math.PI);
      g.fill();
    } else {
      g.fillStyle = '#333';
      g.fillRect(x - 4, y - 4, 8, 8);
    }
  }
}

/** Where node n of a 1D model goes: masses evenly across, anchors at the nearer end, height
 * its displacement scaled to the largest. */
function placeAcross(shape: Shape, positions: Float64Array, width: number, height: number): (n: number) => [number, number] {
  let peak = 0;
  for (const x of positions) peak = Math.max(peak, Math.abs(x));
  const scale = peak > 0 ? (height / 2 - 24) / peak : 0;
  const across = new Float64Array(positions.length);
  for (let n = 0; n < positions.length; n++) across[n] = (n + 1) / (shape.masses + 1);
  for (let l = 0; l < shape.links.length; l += 2) {
    for (const [anchor, mass] of [[shape.links[l], shape.links[l + 1]], [shape.links[l + 1], shape.links[l]]]) {
      if (anchor >= shape.masses && mass < shape.masses) across[anchor] = mass < shape.masses / 2 ? 0 : 1;
    }
  }
  const mid = height / 2 + 8;
  return (n) => [16 + across[n] * (width - 32), mid - positions[n] * scale];
}

/** Where node n of a 2D (or 3D, seen along z) model goes, in a frame holding every position
 * shown (the same scale on both axes). */
function placeInFrame(shape: Shape, positions: Float64Array, width: number, height: number): (n: number) => [number, number] {
  const d = shape.dimension;
  if (seen.links !== shape.links) seen = { links: shape.links, box: [Infinity, Infinity, -Infinity, -Infinity] };
  const box = seen.box;
  for (let i = 0; i < positions.length; i += d) {
    box[0] = Math.min(box[0], positions[i]);
    box[1] = Math.min(box[1], positions[i + 1]);
    box[2] = Math.max(box[2], positions[i]);
    box[3] = Math.max(box[3], positions[i + 1]);
  }
  const span = Math.max(box[2] - box[0], box[3] - box[1], 1e-9);
  const scale = Math.min((width - 40) / span, (height - 60) / span);
  const [cx, cy] = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
  return (n) => [width / 2 + (positions[n * d] - cx) * scale, height / 2 + 8 - (positions[n * d + 1] - cy) * scale];
}
