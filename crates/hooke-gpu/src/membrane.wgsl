// The uniform membrane's five-point stencil, symplectic Euler (Morgan & Qiao 2009, eq. (26));
// see membrane.rs. One invocation per mass per step (`step`), then one small workgroup
// recording the taps (`record_taps`), which also counts the block's steps on the device.

struct Coefficients {
    stiffness_x: f32,  // h k_x / m, 1/s
    stiffness_y: f32,  // h k_y / m, 1/s
    damping_x: f32,    // h Z_x / m, dimensionless
    damping_y: f32,    // h Z_y / m, dimensionless
    retained: f32,     // 1 - h c / m, dimensionless
    force: f32,        // h g / m, m/s
    step: f32,         // h, s
    columns: u32,      // W, masses along x
    rows: u32,         // H, masses along y
    taps: u32,         // taps recorded
    block: u32,        // steps per block (the record's stride per tap)
}

const NONE: u32 = 0xffffffffu;
const VELOCITY: u32 = 0x80000000u;

@group(0) @binding(0) var<uniform> c: Coefficients;
// Positions (m) and velocities (m/s) on the padded (W + 2) x (H + 2) grid, row-major, with
// the rim (fixed at 0) as ghost cells.
@group(0) @binding(1) var<storage, read> x_in: array<f32>;
@group(0) @binding(2) var<storage, read> v_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> x_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> v_out: array<f32>;
// [0]: steps done in this block; [1]: the first step with a non-finite position (NONE: none);
// [2]: the lowest row-major mass index non-finite at that step.
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>, 3>;
// Per tap: its padded index, with VELOCITY set to record the velocity instead of the position.
@group(0) @binding(6) var<storage, read> taps: array<u32>;
// Tap j's value (m or m/s) after step s of the block at j * block + s.
@group(0) @binding(7) var<storage, read_write> record: array<f32>;

fn is_finite(value: f32) -> bool {
    return (bitcast<u32>(value) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(16, 16)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = atomicLoad(&status[0]);
    if id.x >= c.columns || id.y >= c.rows || atomicLoad(&status[1]) < s {
        return;  // off the grid, or an earlier step went non-finite: keep its start state
    }
    let stride = c.columns + 2u;
    let k = (id.y + 1u) * stride + id.x + 1u;
    let x_mid = x_in[k];
    let v_mid = v_in[k];
    let stretch_x = fma(x_mid, -2.0, x_in[k - 1u] + x_in[k + 1u]);
    let stretch_y = fma(x_mid, -2.0, x_in[k - stride] + x_in[k + stride]);
    let shear_x = fma(v_mid, -2.0, v_in[k - 1u] + v_in[k + 1u]);
    let shear_y = fma(v_mid, -2.0, v_in[k - stride] + v_in[k + stride]);
    let velocity = fma(
        c.stiffness_x,
        stretch_x,
        fma(
            c.stiffness_y,
            stretch_y,
            fma(c.damping_x, shear_x, fma(c.damping_y, shear_y, fma(v_mid, c.retained, c.force))),
        ),
    );
    let position = fma(c.step, velocity, x_mid);
    x_out[k] = position;
    v_out[k] = velocity;
    if !is_finite(position) {
        atomicMin(&status[1], s);
        atomicMin(&status[2], id.y * c.columns + id.x);
    }
}

@compute @workgroup_size(64)
fn record_taps(@builtin(local_invocation_index) lane: u32) {
    let s = atomicLoad(&status[0]);
    for (var j = lane; j < c.taps; j += 64u) {
        let tap = taps[j];
        let k = tap & ~VELOCITY;
        var value = x_out[k];
        if (tap & VELOCITY) != 0u {
            value = v_out[k];
        }
        record[j * c.block + s] = value;
    }
    storageBarrier();
    if lane == 0u {
        atomicStore(&status[0], s + 1u);
    }
}
