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
//! bytes in f32, twice that in f64), runs every step of a block there with one barrier per
//! step, records the tapped masses' positions or velocities after each step into a
//! `steps x taps x voices` buffer, and writes the chain back at the end. Workgroup memory bounds
//! `N` (in f32, 1022 masses in the 16 KiB every device offers; more on most GPUs), and
//! [`GpuVoices::new`] refuses longer chains with that limit in the message.
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

mod stepping;

use crate::real::{from_bytes, to_bytes, GpuReal};
use crate::{GpuContext, GpuError};
use hooke::kernel::chain::UniformChain;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;
use std::marker::PhantomData;
use stepping::Stepping;

/// Steps per dispatch (and per read-back) at most; fewer when the record would not fit in one
/// storage buffer binding.
const BLOCK: usize = 1024;
/// Workgroup size limit used even where the device allows more (a multiple of 32 and 64 lanes).
const MAX_WORKGROUP: usize = 256;
/// No non-finite value (the shader's `NONE`).
const NONE: u32 = u32::MAX;
/// The flag of a tap recording the velocity (the shader's `VELOCITY`).
const VELOCITY: u32 = 1 << 31;
/// The real-valued parameters of a dispatch, before `steps`, `taps` and `voices` (the shader's
/// `Params`, voice_bindings.wgsl).
const REAL_PARAMS: usize = 7;

/// `V` voices of one uniform chain on the GPU, in `T` (`f32`, or `f64` where the device has
/// it).
#[derive(Debug)]
pub struct GpuVoices<T: GpuReal = f32> {
    context: GpuContext,
    masses: usize,
    voices: usize,
    stepping: Stepping,
    params: wgpu::Buffer,
    /// Positions (m) and velocities (m/s), or with [`Stepping::Modal`] the modal amplitudes,
    /// three copies each: a block reads copy `c` and writes copy `c + 1` (mod 3).
    x: [wgpu::Buffer; 3],
    v: [wgpu::Buffer; 3],
    /// A word per voice, each `NONE`: copied over a slot's status before each block.
    no_failure: wgpu::Buffer,
    /// The buffers sized for the taps of the last call.
    recorder: Recorder,
    /// Which copy holds the current state.
    current: usize,
    real: PhantomData<T>,
}

/// The pipeline for up to `capacity` taps, its buffers, and the bind groups over them.
#[derive(Debug)]
struct Recorder {
    capacity: usize,
    pipeline: wgpu::ComputePipeline,
    /// Steps per dispatch.
    block: usize,
    /// The taps as the shader reads them ([`Stepping::encode`]), of the taps `encoded`.
    taps: wgpu::Buffer,
    encoded: Vec<(usize, Quantity)>,
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

impl<T: GpuReal> GpuVoices<T> {
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
        let stepping = Stepping::stencil::<T>(context, chain.masses)?;
        Self::build(context, chain, dt, voices, initial, stepping)
    }

    /// `voices` copies of `chain` with step `dt` (s) stepped by `scheme` (any linear scheme)
    /// mode by mode; `initial` as for [`GpuVoices::new`]. An error if the analysis cannot
    /// measure the scheme's step on the modes, or the string has more modes than a workgroup
    /// holds (eight per invocation).
    pub fn modal(
        context: &GpuContext,
        chain: UniformChain,
        scheme: SchemeKind,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
    ) -> Result<Self, GpuError> {
        let stepping = Stepping::modal::<T>(context, &chain, scheme, dt)?;
        Self::build(context, chain, dt, voices, initial, stepping)
    }

    /// `voices` copies of `chain` stepped by `scheme`: symplectic Euler on the stencil
    /// ([`GpuVoices::new`]), any other linear scheme mode by mode ([`GpuVoices::modal`]).
    pub fn for_scheme(
        context: &GpuContext,
        chain: UniformChain,
        scheme: SchemeKind,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
    ) -> Result<Self, GpuError> {
        if scheme == SchemeKind::SymplecticEuler {
            Self::new(context, chain, dt, voices, initial)
        } else {
            Self::modal(context, chain, scheme, dt, voices, initial)
        }
    }

    /// Whether the voices are stepped mode by mode.
    pub fn is_modal(&self) -> bool {
        matches!(self.stepping, Stepping::Modal { .. })
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
        if T::SIZE * n * voices > binding {
            return Err(GpuError::Size(format!(
                "{voices} voices of {n} masses exceed this GPU's {binding}-byte buffers"
            )));
        }
        let (mut x0, mut v0) =
            (Vec::with_capacity(T::SIZE * n * voices), Vec::with_capacity(T::SIZE * n * voices));
        for voice in 0..voices {
            let (x, v) = initial(voice);
            if x.len() < n || v.len() < n {
                return Err(GpuError::Size(format!(
                    "voice {voice}'s initial state has fewer than {n} masses"
                )));
            }
            x0.extend(stepping.to_device::<T>(&x[..n]));
            v0.extend(stepping.to_device::<T>(&v[..n]));
        }
        let state_bytes = (T::SIZE * n * voices) as u64;
        let x = [0, 1, 2].map(|_| context.storage("hooke voices x", state_bytes));
        let v = [0, 1, 2].map(|_| context.storage("hooke voices v", state_bytes));
        context.queue.write_buffer(&x[0], 0, &x0);
        context.queue.write_buffer(&v[0], 0, &v0);
        // The shader's `Params`: the chain's coefficients (h k/m, h Z/m, 1 - h c/m, h g/m, h,
        // the anchors' positions), then the steps, taps and voices of a dispatch, padded to
        // whole 16-byte rows.
        let per_mass = dt / chain.mass;
        let mut params_value = to_bytes::<T>([
            per_mass * chain.stiffness,
            per_mass * chain.damping,
            1.0 - per_mass * chain.drag,
            per_mass * chain.force,
            dt,
            chain.left,
            chain.right,
        ]);
        params_value.extend([0, 0, voices as u32].iter().flat_map(|word| word.to_le_bytes()));
        params_value.resize(params_value.len().next_multiple_of(16), 0);
        let params = context.uniform("hooke voices params", &params_value);
        let no_failure = context.storage("hooke voices no failure", (4 * voices) as u64);
        context.queue.write_buffer(&no_failure, 0, bytemuck::cast_slice(&vec![NONE; voices]));
        let state = State { params: &params, x: &x, v: &v };
        let recorder = Recorder::new::<T>(context, &stepping, n, state, voices, 1)?;
        Ok(Self {
            context: context.clone(),
            masses: n,
            voices,
            stepping,
            params,
            x,
            v,
            no_failure,
            recorder,
            current: 0,
            real: PhantomData,
        })
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
        record: &mut [T],
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
                Recorder::new::<T>(&self.context, &self.stepping, self.masses, state, voices, capacity)?;
        }
        if self.recorder.encoded != taps {
            let encoded = self.stepping.encode::<T>(taps, self.recorder.capacity);
            self.context.queue.write_buffer(&self.recorder.taps, 0, &encoded);
            self.recorder.encoded = taps.to_vec();
        }
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
            let status_bytes = status_bytes(voices);
            let bytes = (status_bytes + T::SIZE * length * per_step) as u64;
            let masses = self.masses;
            let bad = self.context.read_submitted(submitted, &slot.staging, bytes, |bytes: &[u8]| {
                let (status, samples) = bytes.split_at(status_bytes);
                let status = status[..4 * voices]
                    .chunks_exact(4)
                    .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]));
                let bad = status.enumerate().min_by_key(|&(_, key)| key).filter(|&(_, key)| key != NONE);
                if bad.is_none() {
                    // Mapped ranges are aligned for f64 (and the status is padded to 8 bytes),
                    // so the first branch is the one taken; the second never panics.
                    match bytemuck::try_cast_slice(samples) {
                        Ok(values) => out.copy_from_slice(values),
                        Err(_) => {
                            out.iter_mut().zip(samples.chunks_exact(T::SIZE)).for_each(|(out, value)| {
                                *out = bytemuck::pod_read_unaligned(value);
                            })
                        }
                    }
                }
                bad.map(|(voice, key)| {
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
        let steps_offset = (REAL_PARAMS * T::SIZE) as u64;
        context.queue.write_buffer(&self.params, steps_offset, bytemuck::cast_slice(&steps_and_taps));
        let mut encoder = context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.no_failure, 0, &slot.first_bad, 0, 4 * voices as u64);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.recorder.pipeline);
            pass.set_bind_group(0, &slot.groups[(self.current + b) % 3], &[]);
            pass.dispatch_workgroups(voices as u32, 1, 1);
        }
        let record_bytes = (T::SIZE * length * taps * voices) as u64;
        encoder.copy_buffer_to_buffer(&slot.first_bad, 0, &slot.staging, 0, 4 * voices as u64);
        if record_bytes > 0 {
            let at = status_bytes(voices) as u64;
            encoder.copy_buffer_to_buffer(&slot.record, 0, &slot.staging, at, record_bytes);
        }
        context.queue.submit([encoder.finish()])
    }

    /// The positions of voice `voice`'s masses, m (read back from the device).
    pub fn positions(&self, voice: usize) -> Result<Vec<T>, GpuError> {
        self.read(&self.x[self.current], voice)
    }

    /// The velocities of voice `voice`'s masses, m/s (read back from the device).
    pub fn velocities(&self, voice: usize) -> Result<Vec<T>, GpuError> {
        self.read(&self.v[self.current], voice)
    }

    /// Voice `voice`'s masses' values of its part of `buffer`, read back.
    fn read(&self, buffer: &wgpu::Buffer, voice: usize) -> Result<Vec<T>, GpuError> {
        if voice >= self.voices {
            return Err(GpuError::Size(format!("voice {voice} is beyond the {} voices", self.voices)));
        }
        let bytes = (T::SIZE * self.masses) as u64;
        let staging = self.context.staging("hooke voices state", bytes);
        let mut encoder = self.context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, voice as u64 * bytes, &staging, 0, bytes);
        let raw: Vec<u8> = self.context.submit_and_read(encoder, &staging, bytes)?;
        let values = self.stepping.to_masses(from_bytes::<T>(&raw).collect());
        Ok(values.into_iter().map(T::from_f64).collect())
    }
}

/// The bytes of the status of `voices` voices (a word each) in a read-back, padded to 8 so
/// that the record after it is aligned for `f64`.
fn status_bytes(voices: usize) -> usize {
    (4 * voices).next_multiple_of(8)
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
    fn new<T: GpuReal>(
        context: &GpuContext,
        stepping: &Stepping,
        masses: usize,
        state: State<'_>,
        voices: usize,
        capacity: usize,
    ) -> Result<Self, GpuError> {
        let (source, extra) = stepping.shader::<T>(context, masses, capacity)?;
        let pipeline = context.pipelines("hooke voices", &source, &["advance"])?.remove(0);
        let limits = context.limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) as usize;
        let block = BLOCK.min(binding / (T::SIZE * voices * capacity));
        if block == 0 {
            return Err(GpuError::Size(format!(
                "{capacity} taps of {voices} voices exceed this GPU's {binding}-byte buffers"
            )));
        }
        let taps = context.storage("hooke voices taps", stepping.tap_bytes::<T>(capacity) as u64);
        let slots = [0, 1].map(|_| {
            let first_bad = context.storage("hooke voices status", (4 * voices) as u64);
            let record_bytes = T::SIZE * block * capacity * voices;
            let record = context.storage("hooke voices record", record_bytes as u64);
            let staging =
                context.staging("hooke voices read-back", (status_bytes(voices) + record_bytes) as u64);
            let groups = [0, 1, 2].map(|from| {
                let to = (from + 1) % 3;
                let State { params, x, v } = state;
                let bound = [params, &x[from], &v[from], &x[to], &v[to], &record, &first_bad, &taps];
                let entries: Vec<_> = (0..).zip(bound).chain(extra.iter().copied()).collect();
                context.bind(&pipeline, &entries)
            });
            Slot { first_bad, record, staging, groups }
        });
        Ok(Self { capacity, pipeline, block, taps, encoded: Vec::new(), slots })
    }
}
