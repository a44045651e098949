// Browser tests of the playground, in headless Chromium (Debian's chromium, driven by
// playwright-core), on the served site. Run by scripts/test-web.sh, which builds and serves it:
//
//   BASE_URL=http://127.0.0.1:PORT/ NATIVE_SAMPLES=native.f32 NATIVE_LOWEST=HZ node tests/run.mjs
//
// NATIVE_SAMPLES: channel 1 of examples/plucked-string.toml rendered natively for 3 s
// (little-endian f32, crates/hooke-web/examples/render.rs); NATIVE_LOWEST: the analysis' lowest
// mode printed by the same native run. Screenshots go to $WEB_TEST_OUTPUT, or web/test-output/;
// WEB_TEST_ONLY=TEXT runs only the tests whose names contain TEXT.
// Each test runs even when one before it failed; the exit status is 1 if any failed.

import { chromium } from 'playwright-core';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundamental, peakDb } from './pitch.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const base = process.env.BASE_URL;
const nativePath = process.env.NATIVE_SAMPLES;
if (!base || !nativePath || !process.env.NATIVE_LOWEST) {
  console.error('set BASE_URL, NATIVE_SAMPLES and NATIVE_LOWEST (scripts/test-web.sh does)');
  process.exit(2);
}
const nativeLowest = Number(process.env.NATIVE_LOWEST);
const output = process.env.WEB_TEST_OUTPUT ?? join(here, '..', 'test-output');
mkdirSync(output, { recursive: true });
const exampleText = readFileSync(join(here, '..', '..', 'examples', 'plucked-string.toml'), 'utf8');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--autoplay-policy=no-user-gesture-required',
  ],
});

/** A fresh page on the site, with its console errors and uncaught exceptions collected. */
async function open(url = base) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.evaluate(() => window.hooke.ready);
  await page.waitForSelector('#error.ok');
  return { page, errors };
}

/** Puts `text` in the editor as typing does, and waits for the check to answer. */
async function type(page, text) {
  await page.evaluate((value) => {
    const editor = document.getElementById('editor');
    editor.value = value;
    editor.dispatchEvent(new Event('input'));
    document.getElementById('error').className = 'pending';
  }, text);
  await page.waitForSelector('#error.ok, #error.bad');
}

/** The samples of an offline render through the worklet, at the page's settings. */
async function renderOffline(page, seconds) {
  return Float32Array.from(await page.evaluate(async (s) => Array.from(await window.hooke.renderOffline(s)), seconds));
}

async function setSlider(page, id, value) {
  await page.evaluate(
    ([id, value]) => {
      const input = document.getElementById(id);
      input.value = String(value);
      input.dispatchEvent(new Event('input'));
    },
    [id, value],
  );
}

const results = [];
/** WEB_TEST_ONLY=TEXT runs only the tests whose names contain TEXT. */
const only = process.env.WEB_TEST_ONLY;
async function test(name, body) {
  if (only && !name.includes(only)) return;
  const started = Date.now();
  try {
    await body();
    results.push([name, true]);
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.push([name, false]);
    console.log(`FAIL ${name}: ${error.stack ?? error}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

await test('the page loads with no console error', async () => {
  const { page, errors } = await open();
  await page.waitForTimeout(500);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  assert((await page.inputValue('#editor')) === exampleText, 'the editor does not hold examples/plucked-string.toml');
  await page.screenshot({ path: join(output, 'loaded.png'), fullPage: true });
  await page.close();
});

let webFundamental = NaN;
await test('the plucked string rendered by the worklet sounds at the predicted lowest mode', async () => {
  const { page, errors } = await open();
  const predicted = await page.evaluate(() => window.hooke.predicted());
  assert(Math.abs(predicted / nativeLowest - 1) < 1e-12, `predicted ${predicted} Hz in the browser, ${nativeLowest} Hz natively`);
  const samples = await renderOffline(page, 3);
  const rate = await page.evaluate(() => window.hooke.rate());
  // A benchmark, not a test: 30 s through the worklet, the context's set-up included.
  const elapsed = await page.evaluate(async () => {
    const started = performance.now();
    await window.hooke.renderOffline(30);
    return (performance.now() - started) / 1000;
  });
  console.log(`     30 s rendered offline through the worklet in ${elapsed.toFixed(3)} s (${(30 / elapsed).toFixed(0)}x real time)`);
  webFundamental = fundamental(samples, rate, predicted);
  const error = webFundamental / predicted - 1;
  console.log(`     fundamental ${webFundamental.toFixed(4)} Hz, predicted ${predicted.toFixed(4)} Hz: error ${(error * 100).toExponential(2)} %`);
  assert(Math.abs(error) < 1e-3, `the fundamental is off by ${(error * 100).toFixed(4)} %`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('the worklet renders the native engine samples to f32 rounding', async () => {
  const { page } = await open();
  const bytes = readFileSync(nativePath);
  const native = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const web = await renderOffline(page, native.length / 44100);
  assert(web.length === native.length, `${web.length} frames in the browser, ${native.length} natively`);
  let peak = 0;
  let worst = 0;
  let worstUlps = 0;
  let differing = 0;
  for (let i = 0; i < native.length; i++) {
    peak = Math.max(peak, Math.abs(native[i]));
    const difference = Math.abs(web[i] - native[i]);
    worst = Math.max(worst, difference);
    if (difference > 0) differing++;
    // One unit in the last place of an f32 of this size: 2^(exponent - 23).
    const ulp = native[i] === 0 ? 2 ** -149 : 2 ** (Math.floor(Math.log2(Math.abs(native[i]))) - 23);
    worstUlps = Math.max(worstUlps, difference / ulp);
  }
  console.log(`     max |web - native| = ${worst.toExponential(3)} (peak ${peak.toExponential(3)}; ${differing} of ${native.length} samples differ; at most ${worstUlps.toFixed(1)} ulp)`);
  assert(peak > 0, 'the native render is silent');
  assert(worst <= peak * 2 ** -23, `the samples differ by ${worst} (peak ${peak}), more than f32 rounding`);
  await page.close();
});

await test('a typo shows its error at its line and column', async () => {
  const { page } = await open();
  const typo = exampleText.replace('masses = 50', 'masess = 50');
  const line = typo.split('\n').findIndex((l) => l.startsWith('masess')) + 1;
  await type(page, typo);
  const shown = await page.evaluate(() => ({ ...document.getElementById('error').dataset, text: document.getElementById('error').textContent }));
  assert(shown.line === String(line) && shown.column === '1', `error shown at ${shown.line}:${shown.column}, expected ${line}:1: ${shown.text}`);
  assert(shown.text.includes(`model.toml:${line}:1:`) && shown.text.includes('masess'), shown.text);
  const marked = await page.$eval('#gutter .bad', (el) => el.textContent);
  assert(marked === String(line), `the gutter marks line ${marked}`);
  const syntax = exampleText.replace('tension = 98.2', 'tension = 98.2.');
  const syntaxLine = syntax.split('\n').findIndex((l) => l.startsWith('tension = 98.2.')) + 1;
  await type(page, syntax);
  const second = await page.evaluate(() => document.getElementById('error').dataset.line);
  assert(second === String(syntaxLine), `syntax error shown at line ${second}, expected ${syntaxLine}`);
  await page.screenshot({ path: join(output, 'error.png'), fullPage: true });
  await type(page, exampleText);
  await page.close();
});

await test('a key press plays a note', async () => {
  const { page, errors } = await open();
  // The string at rest: silent until plucked.
  await type(page, exampleText.replace(/^pluck = .*$/m, ''));
  await page.click('#play');
  await page.waitForTimeout(400);
  const before = await page.evaluate(() => window.hooke.livePeak());
  assert(before === 0, `the string at rest sounds (peak ${before})`);
  await page.click('#scope');
  await page.keyboard.press('f');
  await page.waitForTimeout(400);
  const after = await page.evaluate(() => window.hooke.livePeak());
  console.log(`     live peak before the key ${before}, after ${after.toFixed(4)}`);
  assert(after > 0.01, `the key press left the output at peak ${after}`);
  await page.screenshot({ path: join(output, 'playing.png'), fullPage: true });
  await page.evaluate(() => window.hooke.stop());
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('an instrument from the examples menu plays a note from a key', async () => {
  const { page, errors } = await open();
  await page.selectOption('#examples', 'instruments/guitar.toml');
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('instrument'));
  await page.click('#play');
  await page.waitForFunction(() => window.hooke.liveReady(), null, { timeout: 20000 });
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => window.hooke.livePeak());
  assert(before === 0, `the guitar sounds before a note (peak ${before})`);
  await page.click('#scope');
  await page.keyboard.down('h');
  await page.waitForTimeout(400);
  const after = await page.evaluate(() => window.hooke.livePeak());
  await page.keyboard.up('h');
  console.log(`     guitar: live peak before the key ${before}, after ${after.toFixed(4)}`);
  assert(after > 0.01, `the key press left the output at peak ${after}`);
  await page.screenshot({ path: join(output, 'instrument.png'), fullPage: true });
  await page.evaluate(() => window.hooke.stop());
  // A MIDI note on (E4, channel 1) while stopped starts playback and sounds, as a key does.
  await page.evaluate(() => window.hooke.midi([0x90, 64, 100]));
  await page.waitForFunction(() => window.hooke.liveReady(), null, { timeout: 20000 });
  await page.waitForTimeout(400);
  const midi = await page.evaluate(() => window.hooke.livePeak());
  assert(midi > 0.01, `a MIDI note on left the output at peak ${midi}`);
  // The sustain pedal down, the pitch bent a tone up, the note lifted: still sounding.
  await page.evaluate(() => {
    window.hooke.midi([0xb0, 64, 127]);
    window.hooke.midi([0xe0, 0x7f, 0x7f]);
    window.hooke.midi([0x80, 64, 0]);
  });
  await page.waitForTimeout(300);
  const sustained = await page.evaluate(() => window.hooke.livePeak());
  assert(sustained > 0.001, `with the pedal down and the note lifted the output peaks at ${sustained}`);
  await page.evaluate(() => window.hooke.midi([0xb0, 64, 0]));
  await page.evaluate(() => window.hooke.stop());
  // A benchmark, not a test: the guitar's six open strings struck and 10 s rendered through the
  // worklet, timed by the worklet from its first block to its last (the guitar's build, some
  // seconds that vary by a second from run to run, left out); best of three.
  const timings = await page.evaluate(async () => {
    const timings = [];
    for (let trial = 0; trial < 3; trial++) timings.push(await window.hooke.renderTiming(10, [40, 45, 50, 55, 59, 64]));
    return { timings, rate: window.hooke.rate() };
  });
  const speeds = timings.timings.map(({ seconds, frames }) => frames / timings.rate / seconds);
  assert(speeds.every((speed) => speed > 0), `the worklet's timing: ${JSON.stringify(timings)}`);
  console.log(`     guitar chord: 10 s through the worklet at ${timings.rate} Hz in ${timings.timings.map((t) => t.seconds.toFixed(3)).join(', ')} s: ${Math.max(...speeds).toFixed(1)}x real time at best`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

// A benchmark, not a test of speed: the instruments on a body (the coupled modal path) through
// the worklet, timed as the guitar chord above (the build left out), one trial each: the
// acoustic guitar's open strings, and eleven keys across the grand piano's keyboard.
await test('the acoustic guitar and the grand piano render through the worklet (a benchmark)', async () => {
  const { page, errors } = await open();
  const pieces = [
    ['instruments/acoustic-guitar.toml', [40, 45, 50, 55, 59, 64], 4],
    ['instruments/grand-piano.toml', [21, 33, 45, 57, 60, 64, 67, 72, 84, 96, 108], 1],
  ];
  for (const [name, notes, seconds] of pieces) {
    await page.evaluate(() => (document.getElementById('error').className = 'pending'));
    await page.selectOption('#examples', name);
    await page.waitForSelector('#error.ok, #error.bad', { timeout: 120000 });
    const status = await page.textContent('#error');
    assert(status.startsWith('OK'), `${name}: ${status}`);
    const timing = await page.evaluate(([n, s]) => window.hooke.renderTiming(s, n), [notes, seconds]);
    const rate = await page.evaluate(() => window.hooke.rate());
    const speed = timing.frames / rate / timing.seconds;
    assert(timing.frames >= Math.round(seconds * rate) && speed > 0, `${name}: ${JSON.stringify(timing)}`);
    console.log(`     ${name}: ${seconds} s of ${notes.length} notes through the worklet at ${rate} Hz in ${timing.seconds.toFixed(3)} s: ${speed.toFixed(2)}x real time`);
  }
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('the tension slider moves the pitch by the square root of the stiffness factor', async () => {
  const { page } = await open();
  const factor = 2.25;
  const base = fundamental(await renderOffline(page, 3), 44100, await page.evaluate(() => window.hooke.predicted()));
  await setSlider(page, 'tension', factor);
  await page.waitForFunction((f) => window.hooke.predicted() > f, base * 1.2);
  const predicted = await page.evaluate(() => window.hooke.predicted());
  const moved = fundamental(await renderOffline(page, 3), 44100, predicted);
  const ratio = moved / base;
  console.log(`     ${base.toFixed(3)} Hz -> ${moved.toFixed(3)} Hz: ratio ${ratio.toFixed(6)}, sqrt(${factor}) = ${Math.sqrt(factor)}`);
  assert(Math.abs(ratio / Math.sqrt(factor) - 1) < 1e-3, `ratio ${ratio}, expected ${Math.sqrt(factor)}`);
  assert(Math.abs(moved / predicted - 1) < 1e-3, `${moved} Hz, the analysis predicts ${predicted} Hz`);
  await page.close();
});

await test('the mass slider moves the pitch by 1 / sqrt of the mass factor', async () => {
  const { page, errors } = await open();
  const factor = 2.25;
  const base = fundamental(await renderOffline(page, 3), 44100, await page.evaluate(() => window.hooke.predicted()));
  await setSlider(page, 'mass', factor);
  await page.waitForFunction((f) => window.hooke.predicted() < f, base / 1.2);
  const predicted = await page.evaluate(() => window.hooke.predicted());
  const moved = fundamental(await renderOffline(page, 3), 44100, predicted);
  const ratio = moved / base;
  console.log(`     ${base.toFixed(3)} Hz -> ${moved.toFixed(3)} Hz: ratio ${ratio.toFixed(6)}, 1 / sqrt(${factor}) = ${(1 / Math.sqrt(factor)).toFixed(6)}`);
  assert(Math.abs(ratio * Math.sqrt(factor) - 1) < 5e-3, `ratio ${ratio}, expected ${1 / Math.sqrt(factor)}`);
  assert(Math.abs(moved / predicted - 1) < 1e-3, `${moved} Hz, the analysis predicts ${predicted} Hz`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

/** Selects the scheme called `name` and waits for the check at it. */
async function chooseScheme(page, name) {
  const value = await page.$eval('#scheme', (select, n) => [...select.options].find((o) => o.text === n).value, name);
  await page.evaluate(() => (document.getElementById('error').className = 'pending'));
  await page.selectOption('#scheme', value);
  await page.waitForSelector('#error.ok, #error.bad');
}

await test('the scheme menu changes the predicted poles, and the pitch follows the scheme', async () => {
  const { page, errors } = await open();
  const options = await page.$$eval('#scheme option', (list) => list.map((o) => o.text));
  assert(options.length === 14, `the scheme menu has ${options.length} entries: ${options.join(', ')}`);
  const before = await page.evaluate(() => window.hooke.modes());
  const scheme = 'backward-euler';
  await chooseScheme(page, scheme);
  const status = await page.textContent('#error');
  assert(status.includes(scheme), status);
  const after = await page.evaluate(() => window.hooke.modes());
  assert(after.length === before.length, `${after.length / 4} modes, ${before.length / 4} before`);
  // Backward Euler damps every mode numerically: each pole moves inside the unit circle.
  let moved = 0;
  for (let i = 0; i < after.length; i += 4) {
    const [r0, r1] = [Math.hypot(before[i + 2], before[i + 3]), Math.hypot(after[i + 2], after[i + 3])];
    if (r1 < r0 - 1e-9) moved++;
  }
  console.log(`     ${scheme}: ${moved} of ${after.length / 4} poles moved inward; highest mode ${before[before.length - 3].toFixed(1)} -> ${after[after.length - 3].toFixed(1)} Hz`);
  assert(moved === after.length / 4, `only ${moved} poles moved inward`);
  const title = await page.evaluate(() => document.getElementById('poles').getContext('2d') !== null);
  assert(title, 'no poles picture');
  const predicted = await page.evaluate(() => window.hooke.predicted());
  const heard = fundamental(await renderOffline(page, 3), 44100, predicted);
  const error = heard / predicted - 1;
  console.log(`     ${scheme}: fundamental ${heard.toFixed(4)} Hz, predicted ${predicted.toFixed(4)} Hz (file's scheme: ${before[1].toFixed(4)} Hz): error ${(error * 100).toExponential(2)} %`);
  assert(Math.abs(error) < 1e-3, `the fundamental is off by ${(error * 100).toFixed(4)} %`);
  // Switched while playing: the string goes on sounding from its state (no restart).
  await chooseScheme(page, 'symplectic-euler');
  await page.click('#play');
  await page.waitForFunction(() => window.hooke.liveReady());
  await page.waitForTimeout(300);
  await chooseScheme(page, 'midpoint');
  await page.waitForTimeout(400);
  const peak = await page.evaluate(() => window.hooke.livePeak());
  assert(peak > 0.01, `after switching while playing, the output peaks at ${peak}`);
  await page.screenshot({ path: join(output, 'scheme.png'), fullPage: true });
  await page.evaluate(() => window.hooke.stop());
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('the rate menu renders at another rate, at the pitch predicted there', async () => {
  const { page, errors } = await open();
  await page.evaluate(() => (document.getElementById('error').className = 'pending'));
  await page.selectOption('#rate', '48000');
  await page.waitForSelector('#error.ok');
  const status = await page.textContent('#error');
  assert(status.includes('48000 Hz'), status);
  const [rate, predicted] = await page.evaluate(() => [window.hooke.rate(), window.hooke.predicted()]);
  assert(rate === 48000, `rate ${rate}`);
  const heard = fundamental(await renderOffline(page, 3), rate, predicted);
  const error = heard / predicted - 1;
  console.log(`     at ${rate} Hz: fundamental ${heard.toFixed(4)} Hz, predicted ${predicted.toFixed(4)} Hz: error ${(error * 100).toExponential(2)} %`);
  assert(Math.abs(error) < 1e-3, `the fundamental is off by ${(error * 100).toFixed(4)} %`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('a pluck at the middle removes the even harmonics', async () => {
  const { page, errors } = await open();
  await type(page, exampleText.replace(/^pluck = .*$/m, ''));
  const modes = await page.evaluate(() => window.hooke.modes());
  const [f1, f2] = [modes[1], modes[5]];
  const secondOverFirst = async (position) => {
    await setSlider(page, 'pluck', position);
    const samples = await renderOffline(page, 3);
    return peakDb(samples, 44100, f2) - peakDb(samples, 44100, f1);
  };
  const [off, middle] = [await secondOverFirst(0.3), await secondOverFirst(0.5)];
  console.log(`     2nd harmonic relative to the 1st: ${off.toFixed(1)} dB plucked at 0.3, ${middle.toFixed(1)} dB at 0.5`);
  assert(off - middle > 20, `the 2nd harmonic drops by ${(off - middle).toFixed(1)} dB`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(output, 'pluck-middle.png'), fullPage: true });
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

/** Counts the pixels of canvas `id` that are not white. */
function inkOf(page, id) {
  return page.$eval(`#${id}`, (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) ink++;
    return ink;
  });
}

await test('the model is drawn, and moves while playing', async () => {
  const { page, errors } = await open();
  const still = await inkOf(page, 'model-view');
  assert(still > 300, `the drawing of the string has ${still} pixels of ink`);
  await page.click('#play');
  await page.waitForFunction(() => window.hooke.liveReady());
  await page.waitForTimeout(300);
  const first = await page.$eval('#model-view', (c) => c.toDataURL());
  await page.waitForTimeout(250);
  const second = await page.$eval('#model-view', (c) => c.toDataURL());
  assert(first !== second, 'the drawing did not change while playing');
  await page.locator('#model-view').screenshot({ path: join(output, 'model-string.png') });
  await page.evaluate(() => window.hooke.stop());
  await page.evaluate(() => (document.getElementById('error').className = 'pending'));
  await page.selectOption('#examples', 'double-pendulum.toml');
  await page.waitForSelector('#error.ok');
  await page.waitForTimeout(300);
  const pendulum = await inkOf(page, 'model-view');
  assert(pendulum > 100, `the drawing of the double pendulum has ${pendulum} pixels of ink`);
  await page.locator('#model-view').screenshot({ path: join(output, 'model-pendulum.png') });
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

/** Puts `text` in the score editor as typing does. */
async function typeScore(page, text) {
  await page.evaluate((value) => {
    const editor = document.getElementById('score-editor');
    editor.value = value;
    editor.dispatchEvent(new Event('input'));
    document.getElementById('score-error').className = 'pending';
  }, text);
  await page.waitForSelector('#score-error.ok, #score-error.bad', { timeout: 60000 });
}

await test('the score editor shows an error at its line, and a score plays', async () => {
  const { page, errors } = await open();
  await page.selectOption('#examples', 'instruments/guitar.toml');
  await page.waitForSelector('#score-section:not([hidden])');
  await page.waitForSelector('#score-error.ok', { timeout: 60000 });
  const score = await page.inputValue('#score-editor');
  assert(score.includes('[score]'), 'no score was loaded with the guitar');
  const bad = score.replace('fret = 2\n', 'fret = 2.5.\n');
  const line = bad.split('\n').findIndex((l) => l.startsWith('fret = 2.5.')) + 1;
  await typeScore(page, bad);
  const shown = await page.evaluate(() => ({ ...document.getElementById('score-error').dataset, text: document.getElementById('score-error').textContent }));
  assert(shown.line === String(line), `score error shown at line ${shown.line}, expected ${line}: ${shown.text}`);
  const marked = await page.$eval('#score-gutter .bad', (el) => el.textContent);
  assert(marked === String(line), `the score's gutter marks line ${marked}`);
  // An event the instrument cannot take: a fret past the string's last, placed on its field.
  const offString = score.replace('fret = 4\n', 'fret = 99\n');
  await typeScore(page, offString);
  const fretLine = offString.split('\n').findIndex((l) => l.startsWith('fret = 99')) + 1;
  const second = await page.evaluate(() => document.getElementById('score-error').textContent);
  assert(second.includes(`score.toml:${fretLine}:`) && second.includes('99'), `${second}, expected line ${fretLine}`);
  await page.screenshot({ path: join(output, 'score-error.png'), fullPage: true });
  await typeScore(page, score);
  const started = Date.now();
  const result = await page.evaluate(async () => {
    const samples = await window.hooke.playScore();
    let peak = 0;
    for (const x of samples) peak = Math.max(peak, Math.abs(x));
    return { peak, frames: samples.length };
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(`     guitar-phrase: ${(result.frames / 44100).toFixed(2)} s rendered by the checker worker in ${seconds.toFixed(2)} s (on the instrument its check built), peak ${result.peak.toFixed(3)}`);
  assert(result.peak > 0.01, `the score's render peaks at ${result.peak}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(output, 'score.png'), fullPage: true });
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('every example of the menu loads without an error', async () => {
  const { page, errors } = await open();
  const names = await page.$$eval('#examples option', (options) => options.map((o) => o.value).filter((v) => v));
  const expected = readdirSync(join(here, '..', '..', 'examples')).filter((n) => n.endsWith('.toml'));
  assert(expected.every((name) => names.includes(name)), `the menu lacks some of ${expected.join(', ')}`);
  assert(names.includes('instruments/guitar.toml'), 'the menu lacks the guitar');
  for (const name of names) {
    await page.evaluate(() => (document.getElementById('error').className = 'pending'));
    await page.selectOption('#examples', name);
    await page.waitForSelector('#error.ok, #error.bad', { timeout: 60000 });
    const status = await page.textContent('#error');
    assert(status.startsWith('OK'), `${name}: ${status}`);
  }
  // The damped oscillator runs at 1000 Hz, below what Web Audio renders: Play says so.
  await page.selectOption('#examples', 'damped-oscillator.toml');
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('1000 Hz'));
  await page.click('#play');
  await page.waitForSelector('#error.bad');
  const refusal = await page.textContent('#error');
  assert(refusal.includes('1000 Hz cannot be heard'), refusal);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

await test('the share link holds the model', async () => {
  const { page } = await open();
  const text = exampleText.replace('tension = 98.2', 'tension = 150.0  # Ünïcode');
  await type(page, text);
  await page.click('#share');
  const url = await page.inputValue('#share-url');
  await page.close();
  const { page: shared, errors } = await open(url);
  assert((await shared.inputValue('#editor')) === text, 'the shared page holds other text');
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await shared.close();
});

await test('the WAV download holds the render', async () => {
  const { page } = await open();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#wav')]);
  const bytes = readFileSync(await download.path());
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const text = (at) => String.fromCharCode(...bytes.subarray(at, at + 4));
  assert(text(0) === 'RIFF' && text(8) === 'WAVE' && text(36) === 'data', 'not a WAV file');
  assert(view.getUint16(20, true) === 3 && view.getUint32(24, true) === 44100, 'not 32-bit float at 44100 Hz');
  // examples/plucked-string.toml: [run] duration = 3.0 s at rate = 44100 Hz.
  assert(view.getUint32(40, true) === 3 * 44100 * 4, `data of ${view.getUint32(40, true)} bytes`);
  let peak = 0;
  for (let i = 0; i < 3 * 44100; i++) peak = Math.max(peak, Math.abs(view.getFloat32(44 + 4 * i, true)));
  assert(Math.abs(peak - 0.9) < 1e-6, `peak ${peak}, expected the 0.9 it is normalised to`);
  await page.close();
});

await browser.close();
const failed = results.filter(([, ok]) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed; screenshots in ${output}`);
process.exit(failed === 0 ? 0 : 1);
