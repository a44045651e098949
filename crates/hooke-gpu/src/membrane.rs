//! The uniform membrane on the GPU: the five-point stencil of [`hooke::kernel::grid`] on device
//! buffers.
//!
//! For `W x H` masses `m` moving transversally, joined to their four neighbours by
//! spring-dampers `k_x, Z_x` (along x) and `k_y, Z_y` (along y), with drag `c` and a constant
//! force `g`, and a rim fixed at 0, symplectic Euler (Morgan & Qiao 2009, eq. (26)) is
//!
//! ```text
//! v' = v + h/m (k_x (x_W + x_E - 2x) + Z_x (v_W + v_E - 2v)
//!             + k_y (x_S + x_N - 2x) + Z_y (v_S + v_N - 2v) - c v + g)
//! x' = x + h v'
//! ```
//!
//! evaluated with the CPU kernel's nesting of fused multiply-adds, in one of two ways that give
//! the same values:
//!
//! - temporal blocking (the default on a GPU): one workgroup per `16 x 16` masses loads them
//!   with a halo of [`DEPTH`] masses on each side into workgroup memory, takes up to [`DEPTH`]
//!   steps there (each step's valid region one mass smaller; the halo's masses are computed
//!   again by each tile that holds them, with the same values), records its taps after each
//!   step and writes its own masses back to the other device level (ping-pong). Each mass is
//!   read from and written to device memory once per [`DEPTH`] steps instead of once per step,
//!   for about 2.1 times the arithmetic;
//! - a step per dispatch (the default on a CPU driver such as lavapipe): one invocation per mass
//!   reads one level from device memory and writes the other; the first workgroup records the
//!   taps of the level it reads (the step before), and one small dispatch records the block's
//!   last step. On lavapipe, whose workgroup barriers are slow, blocking measured 7 to 10 times
//!   slower than this; on a GPU neither has been measured.
//!
//! A block of [`BLOCK`] steps is one submission, with one read-back of the taps and the status
//! at its end. Each dispatch reads the block's steps done from one of two counters and writes
//! the count after it to the other, so counting costs no dispatch of its own.
//!
//! A non-finite position stops the block on the device: the later dispatches of the block leave
//! the state as it was at the start of the offending dispatch (with blocking, at most
//! [`DEPTH`] - 1 steps before the offending step), which is kept, and the error names the
//! offending step and the lowest mass non-finite at it.

use crate::real::{from_bytes, to_bytes, GpuReal};
use crate::{GpuContext, GpuError};
use hooke::kernel::chain::Tap;
use hooke::kernel::grid::UniformGrid;
use hooke::quantity::Quantity;
use std::marker::PhantomData;

/// Steps per submission and read-back.
pub const BLOCK: usize = 64;
/// Steps per dispatch at most (the shader's `DEPTH`): the halo's width, in masses.
pub const DEPTH: usize = 8;
/// The stencil's workgroup edge (16 x 16 invocations; the shader's `TILE`).
const TILE: usize = 16;
/// Bits of the mass in the status's key (the shader's `MASS_BITS`): at most 2^22 masses.
const MASS_BITS: u32 = 22;
/// No non-finite value (the shader's `NONE`).
const NONE: u32 = u32::MAX;
/// The flag marking a velocity tap (the shader's `VELOCITY`).
const VELOCITY: u32 = 1 << 31;
/// Taps the buffers first hold; they grow when a call asks for more.
const FIRST_TAP_CAPACITY: usize = 16;

/// The real-valued coefficients at the start of the shader's `Coefficients` (h k_x/m, h k_y/m,
/// h Z_x/m, h Z_y/m, 1 - h c/m, h g/m, h), before W, H, the number of taps, [`BLOCK`] and the
/// steps per dispatch (`u32`).
const REAL_COEFFICIENTS: usize = 7;

/// A uniform membrane on the GPU, in `T` (`f32`, or `f64` where the device has it).
#[derive(Debug)]
pub struct GpuMembrane<T: GpuReal = f32> {
    context: GpuContext,
    grid: UniformGrid,
    /// Temporal blocking (`advance`), or a step per dispatch (`step`, `record_taps`).
    blocking: bool,
    /// The pipelines `advance`, `step` and `record_taps`.
    pipelines: Pipelines,
    coefficients: wgpu::Buffer,
    /// Padded positions (m), two time levels.
    x: [wgpu::Buffer; 2],
    /// Padded velocities (m/s), two time levels.
    v: [wgpu::Buffer; 2],
    /// The block's first non-finite step and its key (step in its dispatch, lowest mass).
    status: wgpu::Buffer,
    /// The block's steps done: a dispatch reading level `l` reads counter `l` and writes the
    /// other.
    counters: [wgpu::Buffer; 2],
    /// The taps' buffers, and the bind groups over them.
    recorder: Recorder,
    /// Which level holds the current state.
    current: usize,
    real: PhantomData<T>,
}

impl<T: GpuReal> GpuMembrane<T> {
    /// A membrane `grid` with step `dt` (s) on `context`'s device, from the masses' positions
    /// and velocities (m, m/s) in row-major order (`j W + i`), the rim at rest at 0, as
    /// [`hooke::kernel::grid::GridKernel::new`] takes them.
    pub fn new(
        context: &GpuContext,
        grid: UniformGrid,
        dt: f64,
        x: &[f64],
        v: &[f64],
    ) -> Result<Self, GpuError> {
        let (w, h) = (grid.columns, grid.rows);
        let limits = context.limits();
        if w == 0 || h == 0 {
            return Err(GpuError::Size(format!(
                "a GPU membrane needs at least 1 x 1 masses (got {w} x {h})"
            )));
        }
        if w * h > 1 << MASS_BITS {
            return Err(GpuError::Size(format!(
                "a {w} x {h} membrane has more than the GPU path's 2^{MASS_BITS} masses"
            )));
        }
        if x.len() < w * h || v.len() < w * h {
            return Err(GpuError::Size(format!(
                "the initial state has fewer than the membrane's {w} x {h} masses"
            )));
        }
        let padded_bytes = (T::SIZE * (w + 2) * (h + 2)) as u64;
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let groups = limits.max_compute_workgroups_per_dimension as usize;
        if padded_bytes > binding || w.div_ceil(TILE) > groups || h.div_ceil(TILE) > groups {
            return Err(GpuError::Size(format!(
                "a {w} x {h} membrane exceeds this GPU's {binding}-byte buffers or {groups} workgroups per dimension"
            )));
        }
        let entries = ["advance", "step", "record_taps"];
        let source = T::prelude(context)?.to_owned() + include_str!("membrane.wgsl");
        let made = context.pipelines("hooke membrane", &source, &entries)?;
        let Ok([blocked, step, record]) = <[wgpu::ComputePipeline; 3]>::try_from(made) else {
            return Err(GpuError::Shader("the membrane's pipelines were not made".into()));
        };
        let pipelines = Pipelines { blocked, step, record };
        let per_mass = dt / grid.mass;
        let mut coefficients_value = to_bytes::<T>([
            per_mass * grid.stiffness_x,
            per_mass * grid.stiffness_y,
            per_mass * grid.damping_x,
            per_mass * grid.damping_y,
            1.0 - per_mass * grid.drag,
            per_mass * grid.force,
            dt,
        ]);
        let words = [w as u32, h as u32, 0, BLOCK as u32, DEPTH as u32];
        coefficients_value.extend(words.iter().flat_map(|word| word.to_le_bytes()));
        coefficients_value.resize(coefficients_value.len().next_multiple_of(16), 0);
        let coefficients = context.uniform("hooke membrane coefficients", &coefficients_value);
        let padded = |values: &[f64]| {
            let mut out = vec![0.0; (w + 2) * (h + 2)];
            for j in 0..h {
                out[(j + 1) * (w + 2) + 1..][..w].copy_from_slice(&values[j * w..][..w]);
            }
            to_bytes::<T>(out)
        };
        let level = |label| [context.storage(label, padded_bytes), context.storage(label, padded_bytes)];
        let (xs, vs) = (level("hooke membrane x"), level("hooke membrane v"));
        context.queue.write_buffer(&xs[0], 0, &padded(x));
        context.queue.write_buffer(&vs[0], 0, &padded(v));
        let status = context.storage("hooke membrane status", 8);
        let counters = [0, 1].map(|_| context.storage("hooke membrane steps done", 4));
        let levels =
            Levels { coefficients: &coefficients, status: &status, x: &xs, v: &vs, counters: &counters };
        let recorder = Recorder::new::<T>(context, &pipelines, levels, FIRST_TAP_CAPACITY);
        Ok(Self {
            context: context.clone(),
            grid,
            blocking: !context.is_cpu(),
            pipelines,
            coefficients,
            x: xs,
            v: vs,
            status,
            counters,
            recorder,
            current: 0,
            real: PhantomData,
        })
    }

    /// With temporal blocking (`true`, the default on a GPU) or a step per dispatch (`false`,
    /// the default on a CPU driver such as lavapipe, where workgroup barriers are slow: there
    /// blocking measured 7 to 10 times slower). Both give the same values.
    pub fn blocking(self, blocking: bool) -> Self {
        Self { blocking, ..self }
    }

    /// Whether it steps with temporal blocking.
    pub fn is_blocking(&self) -> bool {
        self.blocking
    }

    /// Advances `steps` steps, adding each tap's weighted value after every step to
    /// `record[j * steps + step]` (tap `j`; `Tap::mass` is the row-major mass index `j W + i`),
    /// as [`hooke::kernel::grid::GridKernel::advance`] does. On a non-finite position, the state
    /// is kept at the start of the offending dispatch (`kept`, at most [`DEPTH`] - 1 steps
    /// before the offending step), the steps before it are recorded, and the error names the
    /// offending step and the lowest mass non-finite at it.
    pub fn advance(&mut self, steps: usize, taps: &[Tap], record: &mut [f64]) -> Result<(), GpuError> {
        let (w, h) = (self.grid.columns, self.grid.rows);
        if let Some(tap) = taps.iter().find(|tap| tap.mass >= w * h) {
            return Err(GpuError::Size(format!(
                "tap mass {} is beyond the membrane's {w} x {h} masses",
                tap.mass
            )));
        }
        if record.len() < taps.len() * steps {
            return Err(GpuError::Size(format!(
                "the record holds {} values, not {} taps x {steps} steps",
                record.len(),
                taps.len()
            )));
        }
        if taps.len() > self.recorder.capacity {
            let levels = Levels {
                coefficients: &self.coefficients,
                status: &self.status,
                x: &self.x,
                v: &self.v,
                counters: &self.counters,
            };
            let capacity = taps.len().next_power_of_two();
            self.recorder = Recorder::new::<T>(&self.context, &self.pipelines, levels, capacity);
        }
        let context = &self.context;
        let encoded: Vec<u32> = taps
            .iter()
            .map(|tap| {
                let padded = ((tap.mass / w + 1) * (w + 2) + tap.mass % w + 1) as u32;
                padded | if tap.quantity == Quantity::Velocity { VELOCITY } else { 0 }
            })
            .collect();
        context.queue.write_buffer(&self.recorder.taps, 0, bytemuck::cast_slice(&encoded));
        let words_offset = (REAL_COEFFICIENTS * T::SIZE) as u64;
        let taps_offset = words_offset + 2 * 4;
        let depth_offset = words_offset + 4 * 4;
        context.queue.write_buffer(&self.coefficients, taps_offset, bytemuck::bytes_of(&(taps.len() as u32)));
        let groups = (w.div_ceil(TILE) as u32, h.div_ceil(TILE) as u32);
        let mut done = 0;
        while done < steps {
            // Whole dispatches of DEPTH steps, then one dispatch of the steps left.
            let left = steps - done;
            let most = if self.blocking { DEPTH } else { 1 };
            let length = if left >= most { BLOCK.min(left - left % most) } else { left };
            let depth = most.min(length);
            context.queue.write_buffer(&self.coefficients, depth_offset, bytemuck::bytes_of(&(depth as u32)));
            context.queue.write_buffer(&self.status, 0, bytemuck::cast_slice(&[NONE, NONE]));
            context.queue.write_buffer(&self.counters[self.current], 0, bytemuck::bytes_of(&0u32));
            let dispatches = length / depth;
            let (pipeline, bound) = if self.blocking {
                (&self.pipelines.blocked, &self.recorder.blocked_groups)
            } else {
                (&self.pipelines.step, &self.recorder.step_groups)
            };
            let mut encoder = context.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(pipeline);
                for dispatch in 0..dispatches {
                    pass.set_bind_group(0, &bound[(self.current + dispatch) % 2], &[]);
                    pass.dispatch_workgroups(groups.0, groups.1, 1);
                }
                if !self.blocking {
                    pass.set_pipeline(&self.pipelines.record);
                    pass.set_bind_group(
                        0,
                        &self.recorder.record_groups[(self.current + dispatches) % 2],
                        &[],
                    );
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
            let record_bytes = (T::SIZE * taps.len() * BLOCK) as u64;
            encoder.copy_buffer_to_buffer(&self.status, 0, &self.recorder.staging, 0, 8);
            if record_bytes > 0 {
                encoder.copy_buffer_to_buffer(
                    &self.recorder.record,
                    0,
                    &self.recorder.staging,
                    8,
                    record_bytes,
                );
            }
            let submission = context.queue.submit([encoder.finish()]);
            let staging = &self.recorder.staging;
            let (status, good) = context.read_submitted(submission, staging, 8 + record_bytes, |bytes| {
                let (status, samples) = bytes.split_at(8);
                let status: [u32; 2] = bytemuck::pod_read_unaligned(status);
                // The dispatches before the offending one kept their steps.
                let good = if status[0] == NONE { length } else { status[0] as usize / depth * depth };
                for (j, tap) in taps.iter().enumerate() {
                    let values = from_bytes::<T>(&samples[j * BLOCK * T::SIZE..][..good * T::SIZE]);
                    for (out, value) in record[j * steps + done..].iter_mut().zip(values) {
                        *out += tap.weight * value;
                    }
                }
                (status, good)
            })?;
            self.current = (self.current + good / depth) % 2;
            if good < length {
                let (step, mass) = (done + status[0] as usize, (status[1] & ((1 << MASS_BITS) - 1)) as usize);
                return Err(GpuError::NonFinite { step, voice: None, mass, kept: done + good });
            }
            done += length;
        }
        Ok(())
    }

    /// The masses' positions (m), row-major (`j W + i`), read back from the device.
    pub fn positions(&self) -> Result<Vec<T>, GpuError> {
        self.read(&self.x[self.current])
    }

    /// The masses' velocities (m/s), row-major (`j W + i`), read back from the device.
    pub fn velocities(&self) -> Result<Vec<T>, GpuError> {
        self.read(&self.v[self.current])
    }

    /// The masses' values in the padded `buffer`, row-major, read back.
    fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<T>, GpuError> {
        let (w, h) = (self.grid.columns, self.grid.rows);
        let bytes = (T::SIZE * (w + 2) * (h + 2)) as u64;
        let staging = self.context.staging("hooke membrane state", bytes);
        let mut encoder = self.context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
        let padded: Vec<T> = self.context.submit_and_read(encoder, &staging, bytes)?;
        Ok(padded.chunks(w + 2).skip(1).take(h).flat_map(|row| row[1..=w].iter().copied()).collect())
    }
}

/// The buffers of up to `capacity` taps, and the recorder's bind groups over them.
#[derive(Debug)]
struct Recorder {
    capacity: usize,
    /// Each tap's padded index and quantity flag.
    taps: wgpu::Buffer,
    /// `capacity x BLOCK` recorded values, m or m/s.
    record: wgpu::Buffer,
    /// The status (2 words) then the record, read back.
    staging: wgpu::Buffer,
    /// `advance`'s bind groups reading level 0 and writing level 1, and the reverse.
    blocked_groups: [wgpu::BindGroup; 2],
    /// `step`'s, likewise.
    step_groups: [wgpu::BindGroup; 2],
    /// `record_taps`'s bind groups reading level 0, and level 1.
    record_groups: [wgpu::BindGroup; 2],
}

/// The buffers the bind groups hold besides the recorder's.
#[derive(Clone, Copy)]
struct Levels<'a> {
    coefficients: &'a wgpu::Buffer,
    status: &'a wgpu::Buffer,
    x: &'a [wgpu::Buffer; 2],
    v: &'a [wgpu::Buffer; 2],
    counters: &'a [wgpu::Buffer; 2],
}

/// The membrane's compute pipelines.
#[derive(Debug)]
struct Pipelines {
    /// `advance`: up to [`DEPTH`] steps with temporal blocking.
    blocked: wgpu::ComputePipeline,
    /// `step`: one step from device memory (and the taps of the step before).
    step: wgpu::ComputePipeline,
    /// `record_taps`: the taps after a block's last `step`.
    record: wgpu::ComputePipeline,
}

impl Recorder {
    /// Buffers for `capacity` taps and the bind groups over them and `levels` (reading level 0
    /// and writing level 1, and the reverse).
    fn new<T: GpuReal>(
        context: &GpuContext,
        pipelines: &Pipelines,
        levels: Levels<'_>,
        capacity: usize,
    ) -> Self {
        let taps = context.storage("hooke membrane taps", 4 * capacity as u64);
        let record = context.storage("hooke membrane record", (T::SIZE * capacity * BLOCK) as u64);
        let staging = context.staging("hooke membrane read-back", (8 + T::SIZE * capacity * BLOCK) as u64);
        let Levels { coefficients, status, x, v, counters } = levels;
        let stepping = |pipeline: &wgpu::ComputePipeline| {
            [0, 1].map(|from| {
                let to = 1 - from;
                let buffers = [
                    coefficients,
                    &x[from],
                    &v[from],
                    &x[to],
                    &v[to],
                    status,
                    &taps,
                    &record,
                    &counters[from],
                    &counters[to],
                ];
                context.bind(pipeline, &(0..).zip(buffers).collect::<Vec<_>>())
            })
        };
        let (blocked_groups, step_groups) = (stepping(&pipelines.blocked), stepping(&pipelines.step));
        let record_groups = [0, 1].map(|from| {
            let buffers = [coefficients, &x[from], &v[from], &taps, &record, &counters[from]];
            context.bind(&pipelines.record, &[0, 1, 2, 6, 7, 8].into_iter().zip(buffers).collect::<Vec<_>>())
        });
        Self { capacity, taps, record, staging, blocked_groups, step_groups, record_groups }
    }
}
