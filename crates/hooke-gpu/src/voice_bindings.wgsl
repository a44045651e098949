// The parameters and buffers of a dispatch of voices, shared by voices.wgsl and modal.wgsl,
// whose bind groups voices/mod.rs makes alike (the host lays out `Params` to match). The chain's
// coefficients are the stencil's; the modal voices take theirs per mode from a buffer.

struct Params {
    stiffness: real,  // h k / m, 1/s
    damping: real,    // h Z / m, dimensionless
    retained: real,   // 1 - h c / m, dimensionless
    force: real,      // h g / m, m/s
    step: real,       // h, s
    left: real,       // left anchor's position, m
    right: real,      // right anchor's position, m
    steps: u32,      // steps in this dispatch
    taps: u32,       // recorded values per step and voice
    voices: u32,     // voices (workgroups) in this dispatch
}


const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: Params;
// Each voice's state, voice-major, N values a voice (value i of voice n at n * N + i): the
// positions (m) and velocities (m/s) of the N masses, or the modal voices' amplitudes of the
// N modes.
@group(0) @binding(1) var<storage, read> x_in: array<real>;
@group(0) @binding(2) var<storage, read> v_in: array<real>;
@group(0) @binding(3) var<storage, read_write> x_out: array<real>;
@group(0) @binding(4) var<storage, read_write> v_out: array<real>;
// Tap j's value (m or m/s) after step s of voice n at (s * taps + j) * voices + n.
@group(0) @binding(5) var<storage, read_write> record: array<real>;
// Per voice, the earliest non-finite value as s * N + i (NONE: none).
@group(0) @binding(6) var<storage, read_write> first_bad: array<atomic<u32>>;
