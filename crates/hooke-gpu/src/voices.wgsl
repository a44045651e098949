// Voices of one uniform chain: one workgroup per voice, symplectic Euler (Morgan & Qiao 2009,
// eq. (26)) with the chain in workgroup memory for all the steps of a dispatch; see
// voices/mod.rs.
// MASSES and WORKGROUP are written in by the host before compilation, after the parameters
// and buffers all voices share (voice_bindings.wgsl).

const MASSES: u32 = {MASSES}u;
const WORKGROUP: u32 = {WORKGROUP}u;
const PADDED: u32 = MASSES + 2u;
const VELOCITY: u32 = 0x80000000u;

// Per tap: its mass (0-based), with VELOCITY set to record the velocity instead of the position.
@group(0) @binding(7) var<storage, read> taps: array<u32>;

// Two time levels of the padded chain (ghost anchors at 0 and MASSES + 1).
var<workgroup> x: array<real, 2u * PADDED>;
var<workgroup> v: array<real, 2u * PADDED>;

@compute @workgroup_size(WORKGROUP)
fn advance(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let voice = group.x;
    let base = voice * MASSES;
    for (var i = lane; i < MASSES; i += WORKGROUP) {
        x[i + 1u] = x_in[base + i];
        v[i + 1u] = v_in[base + i];
    }
    if lane == 0u {
        for (var level = 0u; level < 2u * PADDED; level += PADDED) {
            x[level] = params.left;
            x[level + PADDED - 1u] = params.right;
            v[level] = 0.0;
            v[level + PADDED - 1u] = 0.0;
        }
    }
    workgroupBarrier();
    var bad = NONE;
    for (var s = 0u; s < params.steps; s++) {
        let now = (s & 1u) * PADDED;
        let next = PADDED - now;
        for (var i = lane + 1u; i <= MASSES; i += WORKGROUP) {
            let x_mid = x[now + i];
            let v_mid = v[now + i];
            let stretch = fma(x_mid, -2.0, x[now + i - 1u] + x[now + i + 1u]);
            let shear = fma(v_mid, -2.0, v[now + i - 1u] + v[now + i + 1u]);
            let velocity = fma(
                params.stiffness,
                stretch,
                fma(params.damping, shear, fma(v_mid, params.retained, params.force)),
            );
            let position = fma(params.step, velocity, x_mid);
            x[next + i] = position;
            v[next + i] = velocity;
            if !is_finite(position) {
                bad = min(bad, s * MASSES + i - 1u);
            }
        }
        workgroupBarrier();
        // The next step writes the other level, so the taps read this one without a barrier.
        for (var j = lane; j < params.taps; j += WORKGROUP) {
            let tap = taps[j];
            let k = next + (tap & ~VELOCITY) + 1u;
            record[(s * params.taps + j) * params.voices + voice] = select(x[k], v[k], (tap & VELOCITY) != 0u);
        }
    }
    let last = (params.steps & 1u) * PADDED;
    for (var i = lane; i < MASSES; i += WORKGROUP) {
        x_out[base + i] = x[last + i + 1u];
        v_out[base + i] = v[last + i + 1u];
    }
    if bad != NONE {
        atomicMin(&first_bad[voice], bad);
    }
}
