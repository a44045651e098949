//! Many voices of one uniform string on the GPU: one workgroup per voice.
//!
//! Each voice is a chain of `N` masses `m` joined by springs `k` and dampers `Z`, with drag `c`
//! and a constant force `g`, between two fixed anchors, stepped by symplectic Euler (Morgan &
//! Qiao 2009, eq. (26)) exactly as [`hooke::kernel::chain`] does it:
//!
//! ```text
//! v_i' = v_i + h/m (k (x_{i-1} - 2 x_i + x_{i+1}) + Z (v_{i-1} - 2 v_i + v_{i+1}) - c v_i + g)
//! x_i' = x_i + h v_i'
//! ```
//!
//! as `v_i' = fma(hk/m, stretch, fma(hZ/m, shear, fma(v_i, 1 - hc/m, hg/m)))` with
//! `stretch = fma(x_i, -2, x_{i-1} + x_{i+1})` (and `shear` likewise), `x_i' = fma(h, v_i', x_i)`.
//!
//! A workgroup loads its voice's chain into workgroup memory (two time levels, `16 (N + 2)`
//! bytes), runs every step of a block there with one barrier per step, records the tapped
//! masses' positions or velocities after each step into a `steps x taps x voices` buffer, and
//! writes the chain back at the end. Workgroup memory bounds `N` (1022 masses in the 16 KiB every device offers; more on
//! most GPUs), and [`GpuVoices::new`] refuses longer chains with that limit in the message.
//!
//! Two blocks are in flight: the next block is submitted before the last one's record is read
//! back and copied out, so the GPU steps while the host reads. The state has three copies,
//! each block reading one and writing the next, so that the state at the start of a block that
//! goes non-finite is still there when its status is read, after the next block has run.
//!
//! One workgroup per voice (rather than one invocation per voice) keeps a voice's masses in
//! parallel lanes, so a step costs one barrier rather than `N` dependent updates; on lavapipe
//! it cannot be measured against the alternative meaningfully, and on a GPU it has not been.
//!
//! [`GpuVoices::modal`] runs any linear scheme instead (velocity Verlet, Caldirola-Kanai, the
//! energy-conserving scheme, ...), mode by mode ([`crate::modes`], `modal.wgsl`): the state on
//! the device is then the modal amplitudes, with the same buffers, blocks and read-back.

use crate::modes::{ChainModes, COEFFICIENTS};
use crate::{GpuContext, GpuError};
use hooke::kernel::chain::UniformChain;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;

/// Steps per dispatch (and per read-back) at most; fewer when the record would not fit in one
/// storage buffer binding.
const BLOCK: usize = 1024;
/// Workgroup size limit used even where the device allows more (a multiple of 32 and 64 lanes).
const MAX_WORKGROUP: usize = 256;
/// Modes per invocation of the modal voices at most (each holds its modes' state and
/// coefficients in registers).
const MAX_MODES_PER_LANE: usize = 8;
/// Steps whose sums the modal voices keep in workgroup memory at most before adding them up.
const MAX_CHUNK: usize = 32;
/// No non-finite value (the shader's `NONE`).
const NONE: u32 = u32::MAX;
/// The flag of a tap recording the velocity (the shader's `VELOCITY`).
const VELOCITY: u32 = 1 << 31;
/// Where `steps` and `taps` (written before each block) start in [`Params`].
const STEPS_OFFSET: u64 = std::mem::offset_of!(Params, steps) as u64;

/// `V` voices of one uniform chain, f32, on the GPU.
#[derive(Debug)]
pub struct GpuVoices {
    context: GpuContext,
    masses: usize,
    voices: usize,
    stepping: Stepping,
    params: wgpu::Buffer,
    /// Positions (m) and velocities (m/s), or with [`Stepping::Modal`] the modal amplitudes,
    /// three copies each: a block reads copy `c` and writes copy `c + 1` (mod 3).
    x: [wgpu::Buffer; 3],
    v: [wgpu::Buffer; 3],
    /// The buffers sized for the taps of the last call.
    recorder: Recorder,
    /// Which copy holds the current state.
    current: usize,
}

/// How the voices are stepped.
#[derive(Debug)]
enum Stepping {
    /// Symplectic Euler on the chain's stencil (`voices.wgsl`).
    Stencil,
    /// A linear scheme mode by mode (`modal.wgsl`), with the modes' coefficients on the device.
    Modal { modes: ChainModes, coefficients: wgpu::Buffer },
}

impl Stepping {
    /// The state on the device of the masses' `values` (positions, m, or velocities, m/s).
    fn to_device(&self, values: &[f64]) -> Vec<f32> {
        match self {
            Self::Stencil => values.iter().map(|&value| value as f32).collect(),
            Self::Modal { modes, .. } => modes.to_modes(values),
        }
    }

    /// The masses' values of the state on the device.
    fn to_masses(&self, values: Vec<f32>) -> Vec<f32> {
        match self {
            Self::Stencil => values,
            Self::Modal { modes, .. } => modes.to_masses(&values),
        }
    }

    /// The mass named by a non-finite value's index in a voice's state (a mass, or a mode).
    fn mass_of(&self, index: usize) -> usize {
        match self {
            Self::Stencil => index,
            Self::Modal { modes, .. } => modes.first_mass(index),
        }
    }

    /// The taps as the shader reads them: each tap's mass and quantity flag, or each tap's
    /// weights on the modes (`capacity` taps' worth).
    fn encode(&self, taps: &[(usize, Quantity)], capacity: usize) -> Vec<u32> {
        match self {
            Self::Stencil => taps
                .iter()
                .map(|&(mass, quantity)| {
                    mass as u32 | if quantity == Quantity::Velocity { VELOCITY } else { 0 }
                })
                .collect(),
            Self::Modal { modes, .. } => {
                modes.weights(taps, capacity).into_iter().map(f32::to_bits).collect()
            }
        }
    }

    /// The words of `capacity` taps as [`Stepping::encode`] writes them.
    fn tap_words(&self, capacity: usize) -> usize {
        match self {
            Self::Stencil => capacity,
            Self::Modal { modes, .. } => 2 * capacity * modes.len(),
        }
    }

    /// The shader's source for `masses` masses and up to `capacity` taps, and its extra
    /// bindings beyond the shared eight.
    fn shader(&self, context: &GpuContext, masses: usize, capacity: usize) -> Result<Shader<'_>, GpuError> {
        let params = include_str!("voice_params.wgsl");
        match self {
            Self::Stencil => {
                let lanes = context.limits().max_compute_invocations_per_workgroup as usize;
                let workgroup = masses.next_multiple_of(32).min(MAX_WORKGROUP).min(lanes);
                let source = (params.to_owned() + include_str!("voices.wgsl"))
                    .replace("{MASSES}", &masses.to_string())
                    .replace("{WORKGROUP}", &workgroup.to_string());
                Ok((source, Vec::new()))
            }
            Self::Modal { coefficients, .. } => {
                let workgroup = modal_workgroup(context, masses);
                let shared = context.limits().max_compute_workgroup_storage_size as usize;
                // The sums take 4 (CHUNK x capacity + 1) bytes per invocation.
                let chunk = ((shared / (4 * workgroup)).saturating_sub(1) / capacity).min(MAX_CHUNK);
                if chunk == 0 {
                    return Err(GpuError::Size(format!(
                        "{capacity} taps of the modal voices exceed this GPU's {shared} bytes of workgroup memory"
                    )));
                }
                let source = (params.to_owned() + include_str!("modal.wgsl"))
                    .replace("{MODES}", &masses.to_string())
                    .replace("{WORKGROUP}", &workgroup.to_string())
                    .replace("{PER_LANE}", &masses.div_ceil(workgroup).to_string())
                    .replace("{CAPACITY}", &capacity.to_string())
                    .replace("{CHUNK}", &chunk.to_string());
                Ok((source, vec![(8, coefficients)]))
            }
        }
    }
}

/// A shader's source, and the bindings its bind groups hold beyond the eight all voices share.
type Shader<'a> = (String, Vec<(u32, &'a wgpu::Buffer)>);

/// The modal voices' workgroup for `modes` modes: a multiple of 32 invocations, at most
/// [`MAX_WORKGROUP`] or the device's limit.
fn modal_workgroup(context: &GpuContext, modes: usize) -> usize {
    let lanes = context.limits().max_compute_invocations_per_workgroup as usize;
    modes.next_multiple_of(32).min(MAX_WORKGROUP).min(lanes)
}

/// The pipeline for up to `capacity` taps, its buffers, and the bind groups over them.
#[derive(Debug)]
struct Recorder {
    capacity: usize,
    pipeline: wgpu::ComputePipeline,
    /// Steps per dispatch.
    block: usize,
    /// Each tap's mass and quantity flag.
    taps: wgpu::Buffer,
    /// The buffers of two blocks in flight: block `b` uses slot `b mod 2`.
    slots: [Slot; 2],
}

/// One block's buffers.
#[derive(Debug)]
struct Slot {
    /// Per voice, the earliest non-finite position (step in block x masses + mass).
    first_bad: wgpu::Buffer,
    /// `block x capacity x voices` tapped values, m or m/s.
    record: wgpu::Buffer,
    /// The status (a word per voice) then the record, read back.
    staging: wgpu::Buffer,
    /// Bind groups reading copy `c` of the state and writing copy `c + 1` (mod 3).
    groups: [wgpu::BindGroup; 3],
}

/// The per-dispatch parameters, laid out as the shader's `Params`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    stiffness: f32,
    damping: f32,
    retained: f32,
    force: f32,
    step: f32,
    left: f32,
    right: f32,
    steps: u32,
    taps: u32,
    voices: u32,
}

impl GpuVoices {
    /// `voices` copies of `chain` with step `dt` (s) on `context`'s device, stepped by
    /// symplectic Euler on the stencil; `initial(voice)` gives each voice's positions and
    /// velocities of the masses (m, m/s), as [`hooke::kernel::voices::VoiceBank::new`] takes
    /// them.
    pub fn new(
        context: &GpuContext,
        chain: UniformChain,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
    ) -> Result<Self, GpuError> {
        let n = chain.masses;
        let shared = context.limits().max_compute_workgroup_storage_size as usize;
        if 16 * (n + 2) > shared {
            return Err(GpuError::Size(format!(
                "a string of {n} masses does not fit in this GPU's workgroup memory ({shared} bytes hold at most {} masses)",
                shared / 16 - 2
            )));
        }
        Self::build(context, chain, dt, voices, initial, Stepping::Stencil)
    }

    /// `voices` copies of `chain` with step `dt` (s) stepped by `scheme` (any linear scheme)
    /// mode by mode; `initial` as for [`GpuVoices::new`]. An error if the analysis cannot
    /// measure the scheme's step on the modes, or the string has more modes than
    /// [`MAX_MODES_PER_LANE`] per invocation of a workgroup.
    pub fn modal(
        context: &GpuContext,
        chain: UniformChain,
        scheme: SchemeKind,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
    ) -> Result<Self, GpuError> {
        let n = chain.masses;
        let most = MAX_MODES_PER_LANE * modal_workgroup(context, n);
        if n == 0 || n > most {
            return Err(GpuError::Size(format!("the GPU's modal voices take 1 to {most} masses (got {n})")));
        }
        let modes = ChainModes::new(&chain, scheme, dt)?;
        let coefficients = context.storage("hooke modal coefficients", (4 * COEFFICIENTS * n) as u64);
        context.queue.write_buffer(&coefficients, 0, bytemuck::cast_slice(modes.coefficients()));
        Self::build(context, chain, dt, voices, initial, Stepping::Modal { modes, coefficients })
    }

    /// The voices stepped by `stepping`.
    fn build(
        context: &GpuContext,
        chain: UniformChain,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
        stepping: Stepping,
    ) -> Result<Self, GpuError> {
        let n = chain.masses;
        let limits = context.limits();
        if n == 0 || voices == 0 {
            return Err(GpuError::Size(format!(
                "GPU voices need at least one mass and one voice (got {n} masses, {voices} voices)"
            )));
        }
        if voices > limits.max_compute_workgroups_per_dimension as usize {
            return Err(GpuError::Size(format!(
                "{voices} voices exceed this GPU's {} workgroups per dispatch",
                limits.max_compute_workgroups_per_dimension
            )));
        }
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) as usize;
        if 4 * n * voices > binding {
            return Err(GpuError::Size(format!(
                "{voices} voices of {n} masses exceed this GPU's {binding}-byte buffers"
            )));
        }
        let (mut x0, mut v0) = (Vec::with_capacity(n * voices), Vec::with_capacity(n * voices));
        for voice in 0..voices {
            let (x, v) = initial(voice);
            if x.len() < n || v.len() < n {
                return Err(GpuError::Size(format!(
                    "voice {voice}'s initial state has fewer than {n} masses"
                )));
            }
            x0.extend(stepping.to_device(&x[..n]));
            v0.extend(stepping.to_device(&v[..n]));
        }
        let state_bytes = (4 * n * voices) as u64;
        let x = [0, 1, 2].map(|_| context.storage("hooke voices x", state_bytes));
        let v = [0, 1, 2].map(|_| context.storage("hooke voices v", state_bytes));
        context.queue.write_buffer(&x[0], 0, bytemuck::cast_slice(&x0));
        context.queue.write_buffer(&v[0], 0, bytemuck::cast_slice(&v0));
        let per_mass = dt / chain.mass;
        let params_value = Params {
            stiffness: (per_mass * chain.stiffness) as f32,
            damping: (per_mass * chain.damping) as f32,
            retained: (1.0 - per_mass * chain.drag) as f32,
            force: (per_mass * chain.force) as f32,
            step: dt as f32,
            left: chain.left as f32,
            right: chain.right as f32,
            steps: 0,
            taps: 0,
            voices: voices as u32,
        };
        let params = context.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hooke voices params"),
            size: std::mem::size_of::<Params>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        context.queue.write_buffer(&params, 0, bytemuck::bytes_of(&params_value));
        let recorder =
            Recorder::new(context, &stepping, n, State { params: &params, x: &x, v: &v }, voices, 1)?;
        Ok(Self { context: context.clone(), masses: n, voices, stepping, params, x, v, recorder, current: 0 })
    }

    /// Steps per dispatch (the read-back granularity) with the taps of the last call.
    pub fn block(&self) -> usize {
        self.recorder.block
    }

    /// Advances every voice `steps` steps, writing tap `j`'s value (the position, m, or the
    /// velocity, m/s, of its mass, 0-based) of each voice after every step to
    /// `record[(step * taps.len() + j) * voices + voice]`; with one position tap, as
    /// [`hooke::kernel::voices::VoiceBank::advance`] does. On a non-finite position the state
    /// is kept at the start of the block that produced it (the steps before that block are
    /// recorded) and the error names the earliest step, its voice and mass.
    pub fn advance(
        &mut self,
        steps: usize,
        taps: &[(usize, Quantity)],
        record: &mut [f32],
    ) -> Result<(), GpuError> {
        let voices = self.voices;
        if let Some(&(mass, _)) = taps.iter().find(|(mass, _)| *mass >= self.masses) {
            return Err(GpuError::Size(format!(
                "tap mass {mass} is beyond the string's {} masses",
                self.masses
            )));
        }
        let per_step = taps.len() * voices;
        if record.len() < steps * per_step {
            return Err(GpuError::Size(format!(
                "the record holds {} values, not {steps} steps x {} taps x {voices} voices",
                record.len(),
                taps.len()
            )));
        }
        if taps.len() > self.recorder.capacity {
            let state = State { params: &self.params, x: &self.x, v: &self.v };
            let capacity = taps.len().next_power_of_two();
            self.recorder =
                Recorder::new(&self.context, &self.stepping, self.masses, state, voices, capacity)?;
        }
        let encoded = self.stepping.encode(taps, self.recorder.capacity);
        self.context.queue.write_buffer(&self.recorder.taps, 0, bytemuck::cast_slice(&encoded));
        let block = self.recorder.block;
        let mut next = (steps > 0).then(|| self.submit(0, steps.min(block), taps.len()));
        let mut b = 0;
        while let Some(submitted) = next.take() {
            let done = b * block;
            let length = block.min(steps - done);
            if done + length < steps {
                next = Some(self.submit(b + 1, block.min(steps - done - length), taps.len()));
            }
            let slot = &self.recorder.slots[b % 2];
            let out = &mut record[done * per_step..(done + length) * per_step];
            let bytes = (4 * (voices + length * per_step)) as u64;
            let masses = self.masses;
            let bad = self.context.read_submitted(submitted, &slot.staging, bytes, |words: &[u32]| {
                let (status, samples) = words.split_at(voices);
                let bad =
                    status.iter().enumerate().min_by_key(|&(_, &key)| key).filter(|(_, &key)| key != NONE);
                if bad.is_none() {
                    for (out, &bits) in out.iter_mut().zip(samples) {
                        *out = f32::from_bits(bits);
                    }
                }
                bad.map(|(voice, &key)| {
                    (voice, key as usize / masses, self.stepping.mass_of(key as usize % masses))
                })
            })?;
            if let Some((voice, step, mass)) = bad {
                self.current = (self.current + b) % 3;
                return Err(GpuError::NonFinite { step: done + step, voice: Some(voice), mass, kept: done });
            }
            b += 1;
        }
        self.current = (self.current + b) % 3;
        Ok(())
    }

    /// Submits block `b` of a call (`length` steps with `taps` taps, from copy `current + b` of
    /// the state, into slot `b mod 2`): its dispatch, then the copy of its status and record to
    /// the slot's staging buffer.
    fn submit(&self, b: usize, length: usize, taps: usize) -> wgpu::SubmissionIndex {
        let (context, voices) = (&self.context, self.voices);
        let slot = &self.recorder.slots[b % 2];
        let steps_and_taps = [length as u32, taps as u32];
        context.queue.write_buffer(&self.params, STEPS_OFFSET, bytemuck::cast_slice(&steps_and_taps));
        context.queue.write_buffer(&slot.first_bad, 0, bytemuck::cast_slice(&vec![NONE; voices]));
        let mut encoder = context.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.recorder.pipeline);
            pass.set_bind_group(0, &slot.groups[(self.current + b) % 3], &[]);
            pass.dispatch_workgroups(voices as u32, 1, 1);
        }
        let status_bytes = (4 * voices) as u64;
        let record_bytes = (4 * length * taps * voices) as u64;
        encoder.copy_buffer_to_buffer(&slot.first_bad, 0, &slot.staging, 0, status_bytes);
        if record_bytes > 0 {
            encoder.copy_buffer_to_buffer(&slot.record, 0, &slot.staging, status_bytes, record_bytes);
        }
        context.queue.submit([encoder.finish()])
    }

    /// The positions of voice `voice`'s masses, m (read back from the device).
    pub fn positions(&self, voice: usize) -> Result<Vec<f32>, GpuError> {
        self.read(&self.x[self.current], voice)
    }

    /// The velocities of voice `voice`'s masses, m/s (read back from the device).
    pub fn velocities(&self, voice: usize) -> Result<Vec<f32>, GpuError> {
        self.read(&self.v[self.current], voice)
    }

    /// Voice `voice`'s masses' values of its part of `buffer`, read back.
    fn read(&self, buffer: &wgpu::Buffer, voice: usize) -> Result<Vec<f32>, GpuError> {
        if voice >= self.voices {
            return Err(GpuError::Size(format!("voice {voice} is beyond the {} voices", self.voices)));
        }
        let bytes = (4 * self.masses) as u64;
        let staging = self.context.staging("hooke voices state", bytes);
        let mut encoder = self.context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, voice as u64 * bytes, &staging, 0, bytes);
        Ok(self.stepping.to_masses(self.context.submit_and_read(encoder, &staging, bytes)?))
    }
}

/// The buffers every bind group holds besides the recorder's.
#[derive(Clone, Copy)]
struct State<'a> {
    params: &'a wgpu::Buffer,
    x: &'a [wgpu::Buffer; 3],
    v: &'a [wgpu::Buffer; 3],
}

impl Recorder {
    /// The pipeline of `stepping` on `masses` masses for `capacity` taps of `voices` voices,
    /// its buffers, and the bind groups over them and `state`.
    fn new(
        context: &GpuContext,
        stepping: &Stepping,
        masses: usize,
        state: State<'_>,
        voices: usize,
        capacity: usize,
    ) -> Result<Self, GpuError> {
        let (source, extra) = stepping.shader(context, masses, capacity)?;
        let pipeline = context.pipelines("hooke voices", &source, &["advance"])?.remove(0);
        let limits = context.limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) as usize;
        let block = BLOCK.min(binding / (4 * voices * capacity));
        if block == 0 {
            return Err(GpuError::Size(format!(
                "{capacity} taps of {voices} voices exceed this GPU's {binding}-byte buffers"
            )));
        }
        let taps = context.storage("hooke voices taps", 4 * stepping.tap_words(capacity) as u64);
        let slots = [0, 1].map(|_| {
            let first_bad = context.storage("hooke voices status", (4 * voices) as u64);
            let record = context.storage("hooke voices record", (4 * block * capacity * voices) as u64);
            let staging =
                context.staging("hooke voices read-back", (4 * (block * capacity + 1) * voices) as u64);
            let groups = [0, 1, 2].map(|from| {
                let to = (from + 1) % 3;
                let State { params, x, v } = state;
                let bound = [params, &x[from], &v[from], &x[to], &v[to], &record, &first_bad, &taps];
                let entries: Vec<_> = (0..).zip(bound).chain(extra.iter().copied()).collect();
                context.bind(&pipeline, &entries)
            });
            Slot { first_bad, record, staging, groups }
        });
        Ok(Self { capacity, pipeline, block, taps, slots })
    }
}
