// The uniform membrane's five-point stencil, symplectic Euler (Morgan & Qiao 2009, eq. (26));
// see membrane.rs. Two ways to step, the same arithmetic (`updated`):
// - temporal blocking (`advance`): one workgroup per TILE x TILE masses loads them with a halo
//   of DEPTH masses into workgroup memory, takes `depth` steps there (the valid region
//   shrinking by one mass a step), records its taps after each step and writes its tile back;
// - a step per dispatch (`step`): one invocation per mass reading device memory; the first
//   workgroup records the taps of the step before (the level it reads), and `record_taps`
//   records the block's last step.
// Each dispatch reads the block's steps done from `count_in` and writes the count after it to
// `count_out` (the host alternates the two counters as it alternates the levels), so no
// dispatch is spent on counting.

struct Coefficients {
    stiffness_x: real,  // h k_x / m, 1/s
    stiffness_y: real,  // h k_y / m, 1/s
    damping_x: real,    // h Z_x / m, dimensionless
    damping_y: real,    // h Z_y / m, dimensionless
    retained: real,     // 1 - h c / m, dimensionless
    force: real,        // h g / m, m/s
    step: real,         // h, s
    columns: u32,      // W, masses along x
    rows: u32,         // H, masses along y
    taps: u32,         // taps recorded
    block: u32,        // steps per block (the record's stride per tap)
    depth: u32,        // steps per dispatch, 1 to DEPTH
}

const NONE: u32 = 0xffffffffu;
const VELOCITY: u32 = 0x80000000u;
// Bits of the mass in the status's key (step in the dispatch above them).
const MASS_BITS: u32 = 22u;
const TILE: u32 = 16u;
const DEPTH: u32 = 8u;
const SPAN: u32 = TILE + 2u * DEPTH;
const CELLS: u32 = SPAN * SPAN;
const LANES: u32 = TILE * TILE;
// `advance` updates four cells per invocation, written out as four calls of `stepped`.
const_assert CELLS == 4u * LANES;

@group(0) @binding(0) var<uniform> c: Coefficients;
// Positions (m) and velocities (m/s) on the padded (W + 2) x (H + 2) grid, row-major, with
// the rim (fixed at 0) as ghost cells.
@group(0) @binding(1) var<storage, read> x_in: array<real>;
@group(0) @binding(2) var<storage, read> v_in: array<real>;
@group(0) @binding(3) var<storage, read_write> x_out: array<real>;
@group(0) @binding(4) var<storage, read_write> v_out: array<real>;
// [0]: the first step of the block with a non-finite position (NONE: none); [1]: the key (step
// in its dispatch << MASS_BITS | row-major mass) of the first non-finite position, the lowest
// mass at the earliest step.
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>, 2>;
// Per tap: its padded index, with VELOCITY set to record the velocity instead of the position.
@group(0) @binding(6) var<storage, read> taps: array<u32>;
// Tap j's value (m or m/s) after step s of the block at j * block + s.
@group(0) @binding(7) var<storage, read_write> record: array<real>;
// The block's steps done before this dispatch, and after it.
@group(0) @binding(8) var<storage, read> count_in: array<u32, 1>;
@group(0) @binding(9) var<storage, read_write> count_out: array<u32, 1>;

// The tile and its halo, SPAN x SPAN, one time level (each step computes into registers first).
var<workgroup> xs: array<real, CELLS>;
var<workgroup> vs: array<real, CELLS>;
// The block's steps done before this dispatch (NONE: an earlier one went non-finite).
var<workgroup> start: u32;

// A mass's position (m) and velocity (m/s) after a step, from its own and its four neighbours'
// (west, east, south, north) positions and velocities, with the CPU kernel's nesting of fma.
fn updated(x_mid: real, v_mid: real, x_around: vec4<real>, v_around: vec4<real>) -> vec2<real> {
    let stretch_x = fma(x_mid, -2.0, x_around.x + x_around.y);
    let stretch_y = fma(x_mid, -2.0, x_around.z + x_around.w);
    let shear_x = fma(v_mid, -2.0, v_around.x + v_around.y);
    let shear_y = fma(v_mid, -2.0, v_around.z + v_around.w);
    let velocity = fma(
        c.stiffness_x,
        stretch_x,
        fma(
            c.stiffness_y,
            stretch_y,
            fma(c.damping_x, shear_x, fma(c.damping_y, shear_y, fma(v_mid, c.retained, c.force))),
        ),
    );
    return vec2<real>(fma(c.step, velocity, x_mid), velocity);
}

// Cell k of the span after step s of a dispatch (0-based) from the span as it is after step
// s - 1: a mass inside the region step s computes is updated, any other cell kept. `key` is
// the cell's non-finite key (NONE if finite or not one of the tile's own masses). (ox, oy) is
// the span's first cell on the padded grid.
struct Stepped {
    x: real,
    v: real,
    key: u32,
}

fn stepped(k: u32, s: u32, ox: i32, oy: i32) -> Stepped {
    let a = k % SPAN;
    let b = k / SPAN;
    let px = ox + i32(a);
    let py = oy + i32(b);
    let inside = a > s && b > s && a < SPAN - 1u - s && b < SPAN - 1u - s;
    if !inside || px < 1 || py < 1 || px > i32(c.columns) || py > i32(c.rows) {
        return Stepped(xs[k], vs[k], NONE);
    }
    let x_around = vec4<real>(xs[k - 1u], xs[k + 1u], xs[k - SPAN], xs[k + SPAN]);
    let v_around = vec4<real>(vs[k - 1u], vs[k + 1u], vs[k - SPAN], vs[k + SPAN]);
    let next = updated(xs[k], vs[k], x_around, v_around);
    // Only the tile's own masses report: the halo's are other tiles' (the same values).
    let own = a >= DEPTH && b >= DEPTH && a < DEPTH + TILE && b < DEPTH + TILE;
    var key = NONE;
    if own && !is_finite(next.x) {
        key = (s << MASS_BITS) | (u32(py - 1) * c.columns + u32(px - 1));
    }
    return Stepped(next.x, next.y, key);
}

@compute @workgroup_size(16, 16)
fn advance(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let s0 = count_in[0];
    if lane == 0u {
        if group.x == 0u && group.y == 0u {
            count_out[0] = s0 + c.depth;
        }
        start = select(s0, NONE, atomicLoad(&status[0]) < s0);
    }
    if workgroupUniformLoad(&start) == NONE {
        return;  // an earlier dispatch went non-finite: its input level is the state kept
    }
    let stride = c.columns + 2u;
    // Cell (a, b) of the span is padded cell (ox + a, oy + b); mass (i, j) is padded (i + 1, j + 1).
    let ox = i32(group.x * TILE) + 1 - i32(DEPTH);
    let oy = i32(group.y * TILE) + 1 - i32(DEPTH);
    for (var k = lane; k < CELLS; k += LANES) {
        let px = ox + i32(k % SPAN);
        let py = oy + i32(k / SPAN);
        var x_value: real = 0.0;
        var v_value: real = 0.0;
        if px >= 0 && py >= 0 && px < i32(stride) && py < i32(c.rows + 2u) {
            let g = u32(py) * stride + u32(px);
            x_value = x_in[g];
            v_value = v_in[g];
        }
        xs[k] = x_value;
        vs[k] = v_value;
    }
    workgroupBarrier();
    var key = NONE;
    for (var s = 0u; s < c.depth; s++) {
        // Step s computes the cells s + 1 to SPAN - 2 - s of the span that are masses.
        let n0 = stepped(lane, s, ox, oy);
        let n1 = stepped(lane + LANES, s, ox, oy);
        let n2 = stepped(lane + 2u * LANES, s, ox, oy);
        let n3 = stepped(lane + 3u * LANES, s, ox, oy);
        key = min(key, min(min(n0.key, n1.key), min(n2.key, n3.key)));
        workgroupBarrier();
        xs[lane] = n0.x;
        vs[lane] = n0.v;
        xs[lane + LANES] = n1.x;
        vs[lane + LANES] = n1.v;
        xs[lane + 2u * LANES] = n2.x;
        vs[lane + 2u * LANES] = n2.v;
        xs[lane + 3u * LANES] = n3.x;
        vs[lane + 3u * LANES] = n3.v;
        workgroupBarrier();
        // The taps among the tile's own masses, after this step.
        for (var j = lane; j < c.taps; j += LANES) {
            let tap = taps[j];
            let padded = tap & ~VELOCITY;
            let a = i32(padded % stride) - ox;
            let b = i32(padded / stride) - oy;
            if a >= i32(DEPTH) && b >= i32(DEPTH) && a < i32(DEPTH + TILE) && b < i32(DEPTH + TILE) {
                let k = u32(b) * SPAN + u32(a);
                record[j * c.block + s0 + s] = select(xs[k], vs[k], (tap & VELOCITY) != 0u);
            }
        }
    }
    if key != NONE {
        atomicMin(&status[0], s0 + (key >> MASS_BITS));
        atomicMin(&status[1], key);
    }
    for (var k = lane; k < CELLS; k += LANES) {
        let a = k % SPAN;
        let b = k / SPAN;
        let px = ox + i32(a);
        let py = oy + i32(b);
        let own = a >= DEPTH && b >= DEPTH && a < DEPTH + TILE && b < DEPTH + TILE;
        if own && px <= i32(c.columns) && py <= i32(c.rows) {
            let g = u32(py) * stride + u32(px);
            x_out[g] = xs[k];
            v_out[g] = vs[k];
        }
    }
}

// Tap j's value in the level `step` reads (after the block's step s - 1) at j * block + s - 1,
// by the invocations of the first workgroup.
fn record_read_level(lane: u32, s: u32) {
    if s == 0u {
        return;  // the level before the block's first step was recorded by the block before
    }
    for (var j = lane; j < c.taps; j += LANES) {
        let tap = taps[j];
        let k = tap & ~VELOCITY;
        record[j * c.block + s - 1u] = select(x_in[k], v_in[k], (tap & VELOCITY) != 0u);
    }
}

@compute @workgroup_size(16, 16)
fn step(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let s = count_in[0];
    if group.x == 0u && group.y == 0u {
        if lane == 0u {
            count_out[0] = s + 1u;
        }
        record_read_level(lane, s);
    }
    if id.x >= c.columns || id.y >= c.rows || atomicLoad(&status[0]) < s {
        return;  // off the grid, or an earlier step went non-finite: keep its start state
    }
    let stride = c.columns + 2u;
    let k = (id.y + 1u) * stride + id.x + 1u;
    let x_around = vec4<real>(x_in[k - 1u], x_in[k + 1u], x_in[k - stride], x_in[k + stride]);
    let v_around = vec4<real>(v_in[k - 1u], v_in[k + 1u], v_in[k - stride], v_in[k + stride]);
    let next = updated(x_in[k], v_in[k], x_around, v_around);
    x_out[k] = next.x;
    v_out[k] = next.y;
    if !is_finite(next.x) {
        atomicMin(&status[0], s);
        atomicMin(&status[1], id.y * c.columns + id.x);
    }
}

// The taps after the block's last step (`step` records each step's taps in the next dispatch).
@compute @workgroup_size(16, 16)
fn record_taps(@builtin(local_invocation_index) lane: u32) {
    record_read_level(lane, count_in[0]);
}
