//! The computer keyboard as a MIDI keyboard, tracker style: the bottom row `z s x d c v g b h n j
//! m ,` is an octave from C (black keys on the row above), `q 2 w 3 e r 5 t 6 y 7 u i` the next;
//! `-` and `=` shift the octaves, space lifts every note, Esc or Ctrl-C stops. Terminals report
//! key presses, not releases: a note sounds until its key is pressed again, or space.

use crate::play::Notes;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::terminal;
use hooke::score::notes::{note_name, NoteKind};
use miette::{miette, IntoDiagnostic};
use std::sync::Mutex;
use std::time::Duration;

/// Semitones from the base C of each key.
const KEYS: [(char, u8); 25] = [
    ('z', 0),
    ('s', 1),
    ('x', 2),
    ('d', 3),
    ('c', 4),
    ('v', 5),
    ('g', 6),
    ('b', 7),
    ('h', 8),
    ('n', 9),
    ('j', 10),
    ('m', 11),
    (',', 12),
    ('q', 12),
    ('2', 13),
    ('w', 14),
    ('3', 15),
    ('e', 16),
    ('r', 17),
    ('5', 18),
    ('t', 19),
    ('6', 20),
    ('y', 21),
    ('7', 22),
    ('u', 23),
];

/// The velocity of a key press.
const VELOCITY: u8 = 100;

/// Restores the terminal when dropped.
struct Raw;

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

/// Plays from the keyboard until `over()` or Esc / Ctrl-C.
pub fn keyboard(notes: &Mutex<Notes>, over: &dyn Fn() -> bool) -> miette::Result<()> {
    let mut base: u8 = 48;
    eprintln!(
        "keyboard: z s x d c v g b h n j m , = C..C (C3 up); q 2 w 3 e r 5 t 6 y 7 u = the next octave"
    );
    eprintln!("          - / = octave down / up, space lifts every note, Esc stops");
    terminal::enable_raw_mode()
        .map_err(|e| miette!("--keyboard: the terminal cannot be put in raw mode: {e}"))?;
    let _raw = Raw;
    let mut held: Vec<u8> = Vec::new();
    let send = |kind| {
        if let Ok(mut notes) = notes.lock() {
            notes.send(0, kind);
        }
    };
    while !over() {
        if !event::poll(Duration::from_millis(20)).into_diagnostic()? {
            continue;
        }
        let Event::Key(KeyEvent { code, modifiers, kind: KeyEventKind::Press, .. }) =
            event::read().into_diagnostic()?
        else {
            continue;
        };
        match code {
            KeyCode::Esc => break,
            KeyCode::Char('c') if modifiers.contains(KeyModifiers::CONTROL) => break,
            KeyCode::Char('-') => base = base.saturating_sub(12).max(12),
            KeyCode::Char('=') => base = (base + 12).min(96),
            KeyCode::Char(' ') => {
                for note in held.drain(..) {
                    send(NoteKind::Off { note });
                }
            }
            KeyCode::Char(key) => {
                let Some(&(_, offset)) = KEYS.iter().find(|(k, _)| *k == key) else { continue };
                let note = base + offset;
                if let Some(i) = held.iter().position(|&n| n == note) {
                    held.swap_remove(i);
                    send(NoteKind::Off { note });
                }
                send(NoteKind::On { note, velocity: VELOCITY });
                held.push(note);
                eprint!("\r{:<6}", note_name(note));
            }
            _ => {}
        }
    }
    eprintln!("\r");
    Ok(())
}
