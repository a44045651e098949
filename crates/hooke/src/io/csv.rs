//! Trajectories as CSV: one row every K steps, full f64 precision.

use super::AtomicFile;
use crate::analysis::energy::energy;
use crate::engine::{check_finite_energy, Engine, RunError};
use crate::system::{Observer, State, System};
use std::io::{self, Write};
use std::path::Path;

const AXES: [&str; 3] = ["x", "y", "z"];

/// Writes `step,t,` then, per mass in model order, its position columns `ID.x` (`ID.y`,
/// `ID.z`) then its velocity columns `ID.vx` (`ID.vy`, `ID.vz`), and with energy
/// `kinetic,potential,total` (J). A row is written at step 0, every `every` steps, at
/// `last_step`, and by [`CsvWriter::finish`] for the last observed step if it was skipped.
/// Numbers use the shortest representation that reads back to the same f64. A column name
/// whose id holds a comma, a double quote or a line break is quoted as RFC 4180 says
/// (`"a,b.x"`, `"say ""hi"".x"`).
#[derive(Debug)]
pub struct CsvWriter<W: Write> {
    out: W,
    every: u64,
    last_step: u64,
    with_energy: bool,
    line: String,
    /// The latest observed state, when its row was skipped (`every` > 1).
    skipped: Option<State>,
    skipped_pending: bool,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header for `system` and returns the writer. `every` must be at least 1.
    pub fn new(
        mut out: W,
        system: &System,
        every: u64,
        last_step: u64,
        with_energy: bool,
    ) -> io::Result<Self> {
        let dim = system.dimension();
        let mut header = String::from("step,t");
        for id in &system.node_ids()[..system.mass_count()] {
            for prefix in ["", "v"] {
                for axis in &AXES[..dim] {
                    header.push(',');
                    header.push_str(&csv_field(&format!("{id}.{prefix}{axis}")));
                }
            }
        }
        if with_energy {
            header.push_str(",kinetic,potential,total");
        }
        header.push('\n');
        out.write_all(header.as_bytes())?;
        Ok(Self {
            out,
            every: every.max(1),
            last_step,
            with_energy,
            line: String::new(),
            skipped: None,
            skipped_pending: false,
        })
    }

    /// Writes the row of the last observed state if `every` skipped it (a run that stopped
    /// early ends on its last good step), flushes, and returns the underlying writer.
    pub fn finish(mut self, system: &System) -> io::Result<W> {
        if self.skipped_pending {
            if let Some(state) = self.skipped.take() {
                self.write_row(system, &state)?;
            }
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn push_number(&mut self, value: f64) {
        let mut buffer = ryu::Buffer::new();
        self.line.push(',');
        self.line.push_str(buffer.format(value));
    }
}

impl<W: Write> Observer for CsvWriter<W> {
    fn observe(&mut self, system: &System, state: &State) -> io::Result<()> {
        if !state.step.is_multiple_of(self.every) && state.step != self.last_step {
            match &mut self.skipped {
                Some(skipped) => skipped.clone_from(state),
                None => self.skipped = Some(state.clone()),
            }
            self.skipped_pending = true;
            return Ok(());
        }
        self.skipped_pending = false;
        self.write_row(system, state)
    }
}

impl<W: Write> CsvWriter<W> {
    fn write_row(&mut self, system: &System, state: &State) -> io::Result<()> {
        let dim = system.dimension();
        self.line.clear();
        self.line.push_str(&state.step.to_string());
        self.push_number(state.t);
        for mass in 0..system.mass_count() {
            let range = mass * dim..(mass + 1) * dim;
            for i in range.clone() {
                self.push_number(state.x[i]);
            }
            for i in range {
                self.push_number(state.v[i]);
            }
        }
        if self.with_energy {
            let e = energy(system, state);
            check_finite_energy(&e, state.step)?;
            self.push_number(e.kinetic);
            self.push_number(e.potential());
            self.push_number(e.total());
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())
    }
}

/// `name` as one CSV field (RFC 4180): in double quotes, with its own doubled, when it holds a
/// comma, a double quote or a line break; as it is otherwise.
fn csv_field(name: &str) -> String {
    if name.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", name.replace('"', "\"\""))
    } else {
        name.to_string()
    }
}

/// Runs `engine` for `steps` steps and writes its trajectory to the CSV file `path` in one call
/// (a row every `every` steps, with energy columns if `with_energy`; see [`CsvWriter`]). The
/// file appears under its name only when complete; a run that becomes unstable still writes
/// every row before the failing step, and then returns the run's error.
pub fn write_csv_file(
    path: &Path,
    engine: &mut Engine,
    steps: u64,
    every: u64,
    with_energy: bool,
) -> Result<(), CsvError> {
    let file = AtomicFile::create(path)?;
    let last = engine.step() + steps;
    let mut writer = CsvWriter::new(file, engine.system(), every, last, with_energy)?;
    let outcome = engine.run(steps, &mut [], &mut [&mut writer]);
    writer.finish(engine.system())?.commit()?;
    outcome.map(|_| ()).map_err(CsvError::Run)
}

/// Why [`write_csv_file`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// Creating or writing the file failed.
    #[error("cannot write the CSV file: {0}")]
    Io(#[from] io::Error),
    /// The run stopped early (the rows before are written).
    #[error(transparent)]
    Run(#[from] RunError),
}
