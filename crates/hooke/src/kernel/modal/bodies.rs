//! Independent chains and membranes side by side (the strings of a guitar, one drum), each with
//! its own sine modes: body `b` holds the masses `first_b .. first_b + n_b` in order, and its
//! modes take the same places among the modes, so a body's masses and modes share their indices.

use super::SineModes;
use std::ops::Range;

/// The bodies, in the order of their masses.
#[derive(Debug, Clone)]
pub struct Bodies {
    parts: Vec<SineModes>,
    /// Each body's first mass (and first mode), then the total.
    first: Vec<usize>,
}

impl Bodies {
    /// The bodies `parts`, holding the masses in turn.
    pub fn new(parts: Vec<SineModes>) -> Self {
        let mut first = Vec::with_capacity(parts.len() + 1);
        first.push(0);
        for part in &parts {
            first.push(first[first.len() - 1] + part.len());
        }
        Self { parts, first }
    }

    /// The number of masses (and of modes).
    pub fn len(&self) -> usize {
        self.first[self.parts.len()]
    }

    /// Whether there is no mass.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bodies' modes and the range of masses (and modes) of each.
    pub fn parts(&self) -> impl Iterator<Item = (&SineModes, Range<usize>)> {
        self.parts.iter().zip(self.first.windows(2)).map(|(part, ends)| (part, ends[0]..ends[1]))
    }

    /// The index of the body holding mass `mass`.
    pub fn body_of(&self, mass: usize) -> usize {
        self.first.partition_point(|&first| first <= mass) - 1
    }

    /// The masses (and modes) of body `body`.
    pub fn range(&self, body: usize) -> Range<usize> {
        self.first[body]..self.first[body + 1]
    }

    /// The body holding mass `mass`, and the range of its masses.
    fn locate(&self, mass: usize) -> (&SineModes, Range<usize>) {
        let body = self.body_of(mass);
        (&self.parts[body], self.range(body))
    }

    /// `out = S values` body by body: masses to modes, or modes to masses (see
    /// [`SineModes::transform`]).
    pub fn transform(&self, values: &[f64], out: &mut [f64]) {
        for (part, range) in self.parts() {
            part.transform(&values[range.clone()], &mut out[range]);
        }
    }

    /// Every mode's value at mass `mass`: the modes of its body, into the same places of `out`
    /// (the other places untouched). Returns the range written.
    pub fn shape_at(&self, mass: usize, out: &mut [f64]) -> Range<usize> {
        let (part, range) = self.locate(mass);
        part.shape_at(mass - range.start, &mut out[range.clone()]);
        range
    }

    /// The value at mass `mass` of the field whose amplitude of mode `j` is `amplitude(j)`.
    pub fn value_of(&self, mass: usize, amplitude: impl Fn(usize) -> f64) -> f64 {
        let (part, range) = self.locate(mass);
        part.value_of(mass - range.start, |j| amplitude(range.start + j))
    }
}
