// Voices of one uniform chain, any linear scheme, mode by mode (see modes.rs): one workgroup
// per voice, each invocation advancing PER_LANE modes in registers through every step of a
// dispatch. A tap's value is a sum over the modes: each invocation adds its modes' terms, keeps
// the sums of CHUNK steps in workgroup memory, and after CHUNK steps the invocations add the
// columns up, one (step, tap) each. MODES, WORKGROUP, PER_LANE, CAPACITY and CHUNK are written
// in by the host before compilation, after the parameters and buffers all voices share
// (voice_bindings.wgsl: the state is the modes' amplitudes; the chain's coefficients are unused
// here).

const MODES: u32 = {MODES}u;
const WORKGROUP: u32 = {WORKGROUP}u;
const PER_LANE: u32 = {PER_LANE}u;
const CAPACITY: u32 = {CAPACITY}u;
const CHUNK: u32 = {CHUNK}u;
// A row of the sums: one invocation's CHUNK x CAPACITY values, padded by one so that
// invocations writing one step and invocations reading one column fall in different banks.
const ROW: u32 = CHUNK * CAPACITY + 1u;

// Tap j's weight of mode p: on the position at 2 j MODES + p, on the velocity at (2 j + 1) MODES + p.
@group(0) @binding(7) var<storage, read> weights: array<real>;
// a, b, c, d, f_q F, f_p F of mode p at i * MODES + p.
@group(0) @binding(8) var<storage, read> coefficients: array<real>;

// The sums of a chunk: invocation l's sum for step s and tap j at l * ROW + s * CAPACITY + j.
var<workgroup> sums: array<real, WORKGROUP * ROW>;

fn coefficient(i: u32, mode: u32) -> real {
    return select(0.0, coefficients[i * MODES + mode], mode < MODES);
}

fn weight(row: u32, mode: u32) -> real {
    return select(0.0, weights[row * MODES + mode], mode < MODES);
}

@compute @workgroup_size(WORKGROUP)
fn advance(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let voice = group.x;
    let base = voice * MODES;
    // This invocation's modes lane + r WORKGROUP (r < PER_LANE); the padding modes are zero
    // and stay zero.
    var q: array<real, PER_LANE>;
    var p: array<real, PER_LANE>;
    var a: array<real, PER_LANE>;
    var b: array<real, PER_LANE>;
    var c: array<real, PER_LANE>;
    var d: array<real, PER_LANE>;
    var push_q: array<real, PER_LANE>;
    var push_p: array<real, PER_LANE>;
    var on_q: array<real, PER_LANE * CAPACITY>;
    var on_p: array<real, PER_LANE * CAPACITY>;
    for (var r = 0u; r < PER_LANE; r++) {
        let mode = lane + r * WORKGROUP;
        let inside = mode < MODES;
        q[r] = select(0.0, x_in[min(base + mode, base + MODES - 1u)], inside);
        p[r] = select(0.0, v_in[min(base + mode, base + MODES - 1u)], inside);
        a[r] = coefficient(0u, mode);
        b[r] = coefficient(1u, mode);
        c[r] = coefficient(2u, mode);
        d[r] = coefficient(3u, mode);
        push_q[r] = coefficient(4u, mode);
        push_p[r] = coefficient(5u, mode);
        for (var j = 0u; j < CAPACITY; j++) {
            on_q[r * CAPACITY + j] = weight(2u * j, mode);
            on_p[r * CAPACITY + j] = weight(2u * j + 1u, mode);
        }
    }
    var bad = NONE;
    for (var start = 0u; start < params.steps; start += CHUNK) {
        let length = min(CHUNK, params.steps - start);
        for (var s = 0u; s < length; s++) {
            var total: array<real, CAPACITY>;
            for (var r = 0u; r < PER_LANE; r++) {
                let q_next = fma(a[r], q[r], fma(b[r], p[r], push_q[r]));
                let p_next = fma(c[r], q[r], fma(d[r], p[r], push_p[r]));
                q[r] = q_next;
                p[r] = p_next;
                if !is_finite(q_next) || !is_finite(p_next) {
                    bad = min(bad, (start + s) * MODES + lane + r * WORKGROUP);
                }
                for (var j = 0u; j < CAPACITY; j++) {
                    total[j] = fma(on_q[r * CAPACITY + j], q_next, fma(on_p[r * CAPACITY + j], p_next, total[j]));
                }
            }
            for (var j = 0u; j < CAPACITY; j++) {
                sums[lane * ROW + s * CAPACITY + j] = total[j];
            }
        }
        workgroupBarrier();
        for (var k = lane; k < length * params.taps; k += WORKGROUP) {
            let s = k / params.taps;
            let j = k % params.taps;
            var value: real = 0.0;
            for (var l = 0u; l < WORKGROUP; l++) {
                value += sums[l * ROW + s * CAPACITY + j];
            }
            record[((start + s) * params.taps + j) * params.voices + voice] = value;
        }
        workgroupBarrier();
    }
    for (var r = 0u; r < PER_LANE; r++) {
        let mode = lane + r * WORKGROUP;
        if mode < MODES {
            x_out[base + mode] = q[r];
            v_out[base + mode] = p[r];
        }
    }
    if bad != NONE {
        atomicMin(&first_bad[voice], bad);
    }
}
