// Bundles the page, the worklet and the checker worker with esbuild into dist/, with the wasm module, the static
// files and the repository's examples (listed in examples/index.json).
// Usage: node build.mjs PATH/TO/hooke_web.wasm
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wasm = process.argv[2];
if (!wasm) {
  console.error('usage: node build.mjs PATH/TO/hooke_web.wasm');
  process.exit(2);
}
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'examples'), { recursive: true });
const common = { bundle: true, minify: true, sourcemap: true, target: 'chrome110', logLevel: 'warning' };
await esbuild.build({ ...common, entryPoints: [join(here, 'src/main.ts')], outfile: join(dist, 'main.js'), format: 'esm' });
await esbuild.build({ ...common, entryPoints: [join(here, 'src/worklet.ts')], outfile: join(dist, 'worklet.js'), format: 'iife' });
await esbuild.build({ ...common, entryPoints: [join(here, 'src/checker.ts')], outfile: join(dist, 'checker.js'), format: 'iife' });
for (const file of ['index.html', 'style.css']) copyFileSync(join(here, file), join(dist, file));
copyFileSync(wasm, join(dist, 'hooke_web.wasm'));
// The model files of examples/ and the instrument files of examples/instruments/ (the menu,
// examples/index.json), and the score files there (those with a [score] table: the score
// editor's menu, examples/scores.json).
const examples = join(here, '..', 'examples');
const models = readdirSync(examples).filter((name) => name.endsWith('.toml')).sort();
const files = readdirSync(join(examples, 'instruments'))
  .filter((name) => name.endsWith('.toml'))
  .sort()
  .map((name) => `instruments/${name}`);
const isScore = (name) => /^\[score\]/m.test(readFileSync(join(examples, name), 'utf8'));
const instruments = files.filter((name) => !isScore(name));
const scores = files.filter(isScore);
mkdirSync(join(dist, 'examples', 'instruments'));
const names = [...models, ...instruments];
for (const name of [...names, ...scores]) copyFileSync(join(examples, name), join(dist, 'examples', name));
writeFileSync(join(dist, 'examples', 'index.json'), JSON.stringify(names));
writeFileSync(join(dist, 'examples', 'scores.json'), JSON.stringify(scores));
console.log(`built ${dist}: ${models.length} model, ${instruments.length} instrument and ${scores.length} score examples`);
