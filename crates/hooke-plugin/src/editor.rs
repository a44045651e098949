//! The plugin's editor (nice-plug-egui): the instrument picker (the preset, and the instrument,
//! tuning and keyboard map files), a slider for each parameter, the CPU and voice meters
//! (`crate::meters`) and the last errors of a build (`crate::shared`).
//!
//! A file is set by typing (or pasting) its path and pressing Load: the state's field takes it
//! and the editor counts it ([`Shared::note_file_set`]), on which `process` asks the host for a
//! restart, whose activation builds the sound. Clear empties the field the same way.

use crate::params::HookeParams;
use crate::presets::Preset;
use crate::shared::Shared;
use crate::Hooke;
use egui::{Color32, Grid, Label, ProgressBar, RichText, TextEdit, Ui};
use nice_plug::context::gui::GuiContext;
use nice_plug::editor::dpi::LogicalSize;
use nice_plug::prelude::{Enum, EnumParam, Param, ParamSetter, Plugin};
use nice_plug_egui::widgets::ParamSlider;
use nice_plug_egui::{
    baseview, create_egui_editor, EguiEditor, EguiEditorState, EguiNiceSettings, Frame, NiceEguiApp,
    RepaintNotifier,
};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// The editor's size, logical pixels.
const SIZE: (f32, f32) = (560.0, 560.0);

/// How often the open editor draws itself again, for the meters.
const REFRESH: Duration = Duration::from_millis(100);

/// The width of the path fields and the sliders, logical pixels.
const FIELD_WIDTH: f32 = 260.0;

/// The width of the labels' column, logical pixels.
const LABEL_WIDTH: f32 = 130.0;

/// The colour of the errors.
const ERROR_COLOUR: Color32 = Color32::from_rgb(0xff, 0x70, 0x60);

/// The plugin's editor.
pub type Editor = EguiEditor<View>;

/// The editor of `params` and `shared`.
pub fn create(params: Arc<HookeParams>, shared: Arc<Shared>) -> Option<Editor> {
    let state = EguiEditorState::from_size(LogicalSize::new(SIZE.0, SIZE.1), 1.0);
    let settings = EguiNiceSettings::new().with_tile(Hooke::NAME);
    let files = StateFile::ALL.map(FileField::new);
    create_egui_editor(state, RepaintNotifier::new(), settings, View { params, shared, gui: None, files })
}

/// What the editor shows and edits.
pub struct View {
    params: Arc<HookeParams>,
    shared: Arc<Shared>,
    /// The host's side of the open window (none while it is closed).
    gui: Option<GuiContext>,
    /// The path fields, by [`StateFile`].
    files: [FileField; StateFile::ALL.len()],
}

impl NiceEguiApp for View {
    fn build(
        &mut self,
        _egui: egui::Context,
        gui: GuiContext,
        _frame: &mut Frame,
    ) -> Result<(), baseview::HandlerError> {
        self.gui = Some(gui);
        Ok(())
    }

    fn ui(&mut self, ui: &mut Ui, _frame: &mut Frame) {
        if let Some(gui) = &self.gui {
            draw(ui, &gui.param_setter(), &self.params, &self.shared, &mut self.files);
        }
        ui.ctx().request_repaint_after(REFRESH);
    }

    fn editor_closed(&mut self) {
        self.gui = None;
    }
}

/// A file of the state the editor sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StateFile {
    /// The instrument file played instead of the preset.
    Instrument,
    /// The Scala scale.
    Tuning,
    /// Its keyboard map.
    KeyboardMap,
}

impl StateFile {
    /// Every file, in the editor's order.
    const ALL: [Self; 3] = [Self::Instrument, Self::Tuning, Self::KeyboardMap];

    /// Its label.
    fn label(self) -> &'static str {
        match self {
            Self::Instrument => "Instrument file",
            Self::Tuning => "Tuning (.scl)",
            Self::KeyboardMap => "Keyboard map (.kbm)",
        }
    }

    /// What its empty field means.
    fn hint(self) -> &'static str {
        match self {
            Self::Instrument => "none: the preset plays",
            Self::Tuning => "none: equal temperament",
            Self::KeyboardMap => "none: the default map",
        }
    }

    /// Its field in the state.
    fn of(self, params: &HookeParams) -> &RwLock<String> {
        match self {
            Self::Instrument => &params.instrument_file,
            Self::Tuning => &params.tuning_file,
            Self::KeyboardMap => &params.keyboard_map_file,
        }
    }
}

/// A path field: the path typed, which Load sets.
#[derive(Debug, Clone)]
struct FileField {
    file: StateFile,
    /// The path typed.
    typed: String,
    /// The state's path when last seen: a new one (a file that did not load put back, a
    /// project loaded) replaces the path typed.
    seen: Option<String>,
}

impl FileField {
    /// The field of `file`, showing the state's path.
    fn new(file: StateFile) -> Self {
        Self { file, typed: String::new(), seen: None }
    }

    /// Draws its row of a grid: label, path, Load and Clear. A press sets the state's field
    /// and counts it in `shared`.
    fn row(&mut self, ui: &mut Ui, params: &HookeParams, shared: &Shared) {
        let field = self.file.of(params);
        let state = Hooke::state_file(field);
        if self.seen.as_ref() != Some(&state) {
            self.typed.clone_from(&state);
            self.seen = Some(state);
        }
        ui.label(self.file.label());
        ui.horizontal(|ui| {
            let edit = TextEdit::singleline(&mut self.typed).hint_text(self.file.hint());
            ui.add(edit.desired_width(FIELD_WIDTH));
            let (load, clear) = (ui.button("Load").clicked(), ui.button("Clear").clicked());
            let set =
                (load || clear).then(|| if clear { String::new() } else { self.typed.trim().to_owned() });
            if let Some(path) = set {
                self.typed.clone_from(&path);
                Hooke::set_state_file(field, &path);
                shared.note_file_set();
            }
        });
        ui.end_row();
    }
}

/// Draws the editor on a panel: the title (what plays), the instrument picker, the parameters,
/// the meters and the last errors.
fn draw(ui: &mut Ui, setter: &ParamSetter, params: &HookeParams, shared: &Shared, files: &mut [FileField]) {
    egui::CentralPanel::default_margins().show(ui, |ui| draw_sections(ui, setter, params, shared, files));
}

/// [`draw`]'s sections.
fn draw_sections(
    ui: &mut Ui,
    setter: &ParamSetter,
    params: &HookeParams,
    shared: &Shared,
    files: &mut [FileField],
) {
    let playing = shared.playing();
    let title = if playing.is_empty() { "Hooke".to_owned() } else { format!("Hooke: {playing}") };
    ui.heading(title);
    section(ui, "Instrument", |ui| {
        ui.label("Preset");
        ui.horizontal(|ui| {
            preset_picker(ui, setter, &params.preset);
            if !Hooke::state_file(&params.instrument_file).is_empty() {
                ui.weak("(the instrument file plays instead)");
            }
        });
        ui.end_row();
        for file in files.iter_mut() {
            file.row(ui, params, shared);
        }
    });
    section(ui, "Parameters", |ui| {
        let sliders = [
            &params.gain,
            &params.tension,
            &params.damping,
            &params.position,
            &params.hardness,
            &params.body_mix,
            &params.input,
        ];
        for param in sliders {
            ui.label(param.name());
            ui.add(ParamSlider::for_param(param, setter).with_width(FIELD_WIDTH));
            ui.end_row();
        }
    });
    section(ui, "Meters", |ui| {
        let meters = &shared.meters;
        let (load, peak) = (meters.load(), meters.peak());
        ui.label("CPU");
        ui.horizontal(|ui| {
            let bar = ProgressBar::new(load.clamp(0.0, 1.0)).text(percent(load));
            ui.add(bar.desired_width(FIELD_WIDTH));
            ui.label(format!("peak {}", percent(peak)));
        });
        ui.end_row();
        ui.label("Voices");
        ui.label(meters.voices().to_string());
        ui.end_row();
    });
    heading(ui, "Last error");
    let errors = shared.errors();
    if errors.is_empty() {
        ui.weak("none");
    } else {
        ui.add(Label::new(RichText::new(errors).color(ERROR_COLOUR)).wrap());
    }
}

/// Draws a section's heading.
fn heading(ui: &mut Ui, text: &str) {
    ui.add_space(8.0);
    ui.separator();
    ui.strong(text);
}

/// Draws a section: its heading, then a grid of rows (a label and its widgets each).
fn section(ui: &mut Ui, text: &str, rows: impl FnOnce(&mut Ui)) {
    heading(ui, text);
    Grid::new(text).num_columns(2).min_col_width(LABEL_WIDTH).spacing([12.0, 6.0]).show(ui, rows);
}

/// The preset parameter as a combo box, set through the host (begin, set, end).
fn preset_picker(ui: &mut Ui, setter: &ParamSetter, param: &EnumParam<Preset>) {
    let current = param.value();
    egui::ComboBox::from_id_salt("preset").selected_text(current.name()).show_ui(ui, |ui| {
        for preset in (0..Preset::variants().len()).map(Preset::from_index) {
            if ui.selectable_label(preset == current, preset.name()).clicked() && preset != current {
                setter.begin_set_parameter(param);
                setter.set_parameter(param, preset);
                setter.end_set_parameter(param);
            }
        }
    });
}

/// `load` (1: the whole block's duration) in percent.
fn percent(load: f32) -> String {
    format!("{:.1} %", 100.0 * load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::epaint::Shape;
    use egui::RawInput;
    use nice_plug::prelude::{GuiContextInner, ParamPtr, PluginApi, PluginState};

    /// A host that takes the editor's parameter changes and does nothing with them.
    struct NoHost;

    impl GuiContextInner for NoHost {
        fn plugin_api(&self) -> PluginApi {
            PluginApi::Clap
        }
        unsafe fn raw_begin_set_parameter(&self, _param: ParamPtr) {}
        unsafe fn raw_set_parameter_normalized(&self, _param: ParamPtr, _normalized: f32) {}
        unsafe fn raw_end_set_parameter(&self, _param: ParamPtr) {}
        fn get_state(&self) -> PluginState {
            unreachable!("the editor reads no state")
        }
        fn set_state(&self, _state: PluginState) {}
        fn request_restart(&self) {}
    }

    /// The texts of `shape` and the shapes it holds, added to `texts`.
    fn collect(shape: &Shape, texts: &mut Vec<String>) {
        match shape {
            Shape::Text(text) => texts.push(text.galley.text().to_owned()),
            Shape::Vec(shapes) => shapes.iter().for_each(|shape| collect(shape, texts)),
            _ => {}
        }
    }

    /// Every text the editor of `params` and `shared` draws, headless: its second frame's (the
    /// grids size themselves, unseen, in the first).
    fn drawn_texts(params: &HookeParams, shared: &Shared) -> Vec<String> {
        let ctx = egui::Context::default();
        let setter = ParamSetter { raw_context: &NoHost };
        let mut files = StateFile::ALL.map(FileField::new);
        let mut frame =
            || ctx.run_ui(RawInput::default(), |ui| draw(ui, &setter, params, shared, &mut files));
        frame();
        let mut texts = Vec::new();
        frame().shapes.iter().for_each(|clipped| collect(&clipped.shape, &mut texts));
        texts
    }

    #[test]
    fn the_editor_shows_what_plays_the_parameters_the_meters_and_the_last_error() {
        let params = HookeParams::default();
        Hooke::set_state_file(&params.instrument_file, "/instruments/marimba.toml");
        let shared = Shared::default();
        shared.set_playing("marimba.toml");
        shared.meters.set_load(0.125, 0.5);
        shared.meters.set_voices(7);
        let error = "/instruments/broken.toml:2:8: expected a value; still playing marimba.toml";
        shared.set_errors(&[error.to_owned()]);
        let texts = drawn_texts(&params, &shared);
        let expected = [
            "Hooke: marimba.toml",
            "Acoustic guitar",
            "/instruments/marimba.toml",
            "Gain",
            "0.0 dB",
            "Tension",
            "1.0000 x",
            "Hardness",
            "12.5 %",
            "peak 50.0 %",
            "7",
            error,
        ];
        for text in expected {
            assert!(texts.iter().any(|drawn| drawn == text), "no {text:?} among {texts:?}");
        }
    }

    #[test]
    fn with_no_error_the_editor_says_none() {
        let texts = drawn_texts(&HookeParams::default(), &Shared::default());
        for text in ["Hooke", "none", "0.0 %", "peak 0.0 %", "0"] {
            assert!(texts.iter().any(|drawn| drawn == text), "no {text:?} among {texts:?}");
        }
    }
}
