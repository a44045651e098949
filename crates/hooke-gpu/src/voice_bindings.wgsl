// The parameters of a dispatch of voices, shared by voices.wgsl and modal.wgsl (whose buffers
// and bind groups are laid out alike); the host's `Params` in voices.rs mirrors it. The chain's
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

