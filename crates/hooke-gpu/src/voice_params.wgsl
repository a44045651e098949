// The parameters of a dispatch of voices, shared by voices.wgsl and modal.wgsl (whose buffers
// and bind groups are laid out alike); the host's `Params` in voices.rs mirrors it. The chain's
// coefficients are the stencil's; the modal voices take theirs per mode from a buffer.

struct Params {
    stiffness: f32,  // h k / m, 1/s
    damping: f32,    // h Z / m, dimensionless
    retained: f32,   // 1 - h c / m, dimensionless
    force: f32,      // h g / m, m/s
    step: f32,       // h, s
    left: f32,       // left anchor's position, m
    right: f32,      // right anchor's position, m
    steps: u32,      // steps in this dispatch
    taps: u32,       // recorded values per step and voice
    voices: u32,     // voices (workgroups) in this dispatch
}

