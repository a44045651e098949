//! One test per validation rule: the error names file, line and column, the offending text and
//! what was expected. No bad file panics.

use hooke::model::file::parse;
use hooke::model::SourceError;

/// Parses `source` (named `bad.toml`), expecting an error.
fn error(source: &str) -> SourceError {
    match parse(source, "bad.toml") {
        Ok(_) => panic!("expected an error for:\n{source}"),
        Err(e) => e,
    }
}

/// Asserts the error's position, that its text holds every `fragment`, and that `Display`
/// starts with `bad.toml:LINE:COLUMN:`.
fn assert_error(e: &SourceError, line: usize, column: usize, found: &str, fragments: &[&str]) {
    let text = e.to_string();
    assert_eq!((e.line, e.column), (line, column), "position of: {text}");
    assert!(text.starts_with(&format!("bad.toml:{line}:{column}: ")), "{text}");
    assert_eq!(e.found, found, "offending text of: {text}");
    for fragment in fragments {
        assert!(text.contains(fragment), "`{fragment}` missing from: {text}");
    }
}

const PENDULUM_2D: &str = r#"[model]
dimension = 2
gravity = [0.0, -9.81]

[[anchor]]
id = "top"
position = [0.0, 10.0]

[[mass]]
id = "bob"
mass = 1.0
position = [3.0, 10.0]
"#;

#[test]
fn the_unmodified_base_file_is_valid() {
    parse(PENDULUM_2D, "good.toml").unwrap();
}

#[test]
fn unknown_id() {
    let e = error(&format!("{PENDULUM_2D}\n[[spring]]\na = \"top\"\nb = \"bobb\"\nstiffness = 100.0\n"));
    assert_error(
        &e,
        16,
        5,
        "\"bobb\"",
        &[
            "link from \"top\" to \"bobb\"",
            "`b`",
            "expected the id of a mass or an anchor",
            "unknown id \"bobb\"",
        ],
    );
}

#[test]
fn duplicate_id() {
    let e = error(&format!("{PENDULUM_2D}\n[[mass]]\nid = \"top\"\nmass = 2.0\nposition = [1.0, 1.0]\n"));
    assert_error(
        &e,
        15,
        6,
        "\"top\"",
        &["mass \"top\"", "`id`", "an id not used before", "duplicate id \"top\""],
    );
}

#[test]
fn duplicate_id_made_by_a_generator() {
    let e = error(
        "[model]\ndimension = 1\n[[mass]]\nid = \"s.2\"\nmass = 1.0\n\
         [[string]]\nid = \"s\"\nmasses = 3\nmass = 1.0\nstiffness = 10.0\n",
    );
    assert_error(&e, 7, 6, "\"s\"", &["mass \"s.2\"", "duplicate id \"s.2\""]);
}

#[test]
fn link_to_itself() {
    let e = error(&format!("{PENDULUM_2D}\n[[spring]]\na = \"bob\"\nb = \"bob\"\nstiffness = 100.0\n"));
    assert_error(&e, 16, 5, "\"bob\"", &["`b`", "a node other than a (\"bob\")"]);
}

#[test]
fn link_between_two_anchors() {
    let e = error(&format!(
        "{PENDULUM_2D}\n[[anchor]]\nid = \"other\"\nposition = [1.0, 1.0]\n\n[[damper]]\na = \"top\"\nb = \"other\"\ndamping = 1.0\n"
    ));
    assert_error(&e, 20, 5, "\"other\"", &["a mass (a link between two anchors never moves)"]);
}

#[test]
fn zero_mass() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = 0.0\n");
    assert_error(&e, 6, 8, "0.0", &["mass \"m\"", "`mass`", "expected a value > 0", "found 0"]);
}

#[test]
fn negative_mass() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = -2\n");
    assert_error(&e, 6, 8, "-2", &["expected a value > 0", "found -2"]);
}

#[test]
fn negative_stiffness() {
    let e = error(&format!("{PENDULUM_2D}\n[[spring]]\na = \"top\"\nb = \"bob\"\nstiffness = -100.0\n"));
    assert_error(&e, 17, 13, "-100.0", &["`stiffness`", "expected a value >= 0", "found -100"]);
}

#[test]
fn negative_damping() {
    let e = error(&format!("{PENDULUM_2D}\n[[damper]]\na = \"top\"\nb = \"bob\"\ndamping = -0.5\n"));
    assert_error(&e, 17, 11, "-0.5", &["`damping`", "expected a value >= 0", "found -0.5"]);
}

#[test]
fn negative_damping_in_a_string_generator() {
    let e = error("[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 3\nmass = 1.0\nstiffness = 10.0\ndamping = -1.0\n");
    assert_error(&e, 8, 11, "-1.0", &["string \"s\"", "`damping`", "expected a value >= 0"]);
}

#[test]
fn nan_value() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = nan\n");
    assert_error(&e, 6, 8, "nan", &["`mass`", "expected a finite number", "found NaN"]);
}

#[test]
fn infinite_position_component() {
    let e = error("[model]\ndimension = 2\n\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = [0.0, inf]\n");
    assert_error(&e, 7, 12, "[0.0, inf]", &["`position`", "expected a finite number", "found inf"]);
}

#[test]
fn infinite_gravity() {
    let e = error("[model]\ndimension = 2\ngravity = [0.0, -inf]\n");
    assert_error(&e, 3, 11, "[0.0, -inf]", &["`gravity`", "expected a finite number"]);
}

#[test]
fn geometric_spring_of_zero_length() {
    let e = error(&format!(
        "{PENDULUM_2D}\n[[mass]]\nid = \"twin\"\nmass = 1.0\nposition = [3.0, 10.0]\n\n[[spring]]\na = \"bob\"\nb = \"twin\"\nstiffness = 1.0\n"
    ));
    assert_error(&e, 21, 5, "\"twin\"", &["ends at distinct positions", "zero length", "[3.0, 10.0]"]);
}

#[test]
fn vector_of_the_wrong_length() {
    let e = error("[model]\ndimension = 2\n\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = [1.0, 2.0, 3.0]\n");
    assert_error(
        &e,
        7,
        12,
        "[1.0, 2.0, 3.0]",
        &["`position`", "2 component(s) for a 2D model", "found 3 component(s)"],
    );
}

#[test]
fn missing_position_in_2d() {
    let e = error("[model]\ndimension = 2\n\n[[mass]]\nid = \"m\"\nmass = 1.0\n");
    assert_error(&e, 4, 1, "[[mass]]", &["`position`", "required in 2D/3D", "found nothing"]);
}

#[test]
fn unknown_field_is_a_typo() {
    let e = error(&format!("{PENDULUM_2D}\n[[spring]]\na = \"top\"\nb = \"bob\"\nstifness = 100.0\n"));
    assert_error(&e, 17, 1, "stifness", &["unknown field `stifness`", "expected one of", "`stiffness`"]);
}

#[test]
fn unknown_table() {
    let e = error("[model]\ndimension = 1\n\n[[springs]]\na = \"x\"\n");
    assert_eq!(e.line, 4);
    assert!(e.to_string().contains("unknown field `springs`"), "{e}");
}

#[test]
fn wrong_type() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = \"heavy\"\n");
    assert_error(&e, 6, 8, "\"heavy\"", &["invalid type", "expected f64"]);
}

#[test]
fn dimension_out_of_range() {
    let e = error("[model]\ndimension = 4\n");
    assert_error(&e, 2, 13, "4", &["`dimension`", "expected 1, 2 or 3", "found 4"]);
}

#[test]
fn toml_syntax_error() {
    let e = error("[model]\ndimension = = 1\n");
    assert_eq!(e.line, 2);
    assert!(e.to_string().starts_with("bad.toml:2:"), "{e}");
}

#[test]
fn missing_model_table() {
    let e = error("[[mass]]\nid = \"m\"\nmass = 1.0\n");
    assert!(e.to_string().contains("missing field `model`"), "{e}");
}

#[test]
fn unknown_scheme() {
    let e = error("[model]\ndimension = 1\n\n[run]\nscheme = \"leapfrog\"\n");
    assert_error(
        &e,
        5,
        10,
        "\"leapfrog\"",
        &["`scheme`", "one of forward-euler, symplectic-euler", "found \"leapfrog\""],
    );
}

#[test]
fn rate_and_dt_together() {
    let e = error("[model]\ndimension = 1\n\n[run]\nrate = 44100\ndt = 0.001\n");
    assert_error(&e, 6, 6, "0.001", &["either `rate` or `dt`, not both"]);
}

#[test]
fn non_positive_rate() {
    let e = error("[model]\ndimension = 1\n\n[run]\nrate = 0\n");
    assert_error(&e, 5, 8, "0", &["`rate`", "expected a value > 0"]);
}

#[test]
fn pickup_on_an_unknown_mass() {
    let e = error(&format!("{PENDULUM_2D}\n[[pickup]]\nmass = \"bobby\"\n"));
    assert_error(&e, 15, 8, "\"bobby\"", &["`mass`", "unknown id \"bobby\""]);
}

#[test]
fn pickup_axis_beyond_the_dimension() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = 1.0\n\n[[pickup]]\nmass = \"m\"\naxis = \"y\"\n");
    assert_error(&e, 10, 8, "\"y\"", &["`axis`", "one of the model's 1 axes (x)", "found y"]);
}

#[test]
fn pickup_channels_with_a_gap() {
    let e = error("[model]\ndimension = 1\n\n[[mass]]\nid = \"m\"\nmass = 1.0\n\n[[pickup]]\nmass = \"m\"\nchannel = 3\n");
    assert_error(&e, 10, 11, "3", &["channel 1 has no pickup"]);
}

#[test]
fn string_with_both_kinds_of_element_values() {
    let e = error("[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 3\nmass = 1.0\nstiffness = 1.0\ntension = 5.0\n");
    assert_error(
        &e,
        8,
        11,
        "5.0",
        &["either mass/stiffness/damping or length/tension/linear_density/decay_time, not both"],
    );
}

#[test]
fn chain_from_an_unknown_node() {
    let e = error(
        "[model]\ndimension = 2\n[[chain]]\nid = \"c\"\nfrom = \"nowhere\"\nmasses = 2\nlink_length = 1.0\n\
         direction = [0.0, -1.0]\nmass = 1.0\nstiffness = 100.0\n",
    );
    assert_error(&e, 5, 8, "\"nowhere\"", &["chain \"c\"", "`from`", "unknown id \"nowhere\""]);
}

#[test]
fn initial_condition_for_an_unknown_mass() {
    let e = error("[model]\ndimension = 1\n[[initial]]\nmass = \"ghost\"\nposition = 1.0\n");
    assert_error(&e, 4, 8, "\"ghost\"", &["`mass`", "the id of a mass"]);
}

#[test]
fn non_ascii_text_before_the_error_counts_columns_in_characters() {
    let e = error(
        "[model]\ndimension = 1\n[[mass]]\nid = \"μ\"\nmass = 1.0\nposition = 0.0\ndrag = -1.0 # ünïcode\n",
    );
    assert_error(&e, 7, 8, "-1.0", &["mass \"μ\"", "`drag`"]);
}

#[test]
fn initial_displacement_of_the_wrong_length() {
    let e = error(&format!("{PENDULUM_2D}\n[[initial]]\nmass = \"bob\"\ndisplacement = [0.5]\n"));
    assert_error(
        &e,
        16,
        16,
        "[0.5]",
        &["`displacement`", "2 component(s) for a 2D model", "found 1 component(s)"],
    );
}

#[test]
fn membrane_origin_of_the_wrong_length() {
    let e = error("[model]\ndimension = 2\n[[membrane]]\nid = \"m\"\ncolumns = 2\nrows = 2\nmass = 1.0\nstiffness = 1.0\nspacing = 0.1\norigin = [1.0]\n");
    assert_error(&e, 10, 10, "[1.0]", &["membrane \"m\"", "`origin`", "2 component(s) for a 2D model"]);
}

#[test]
fn membrane_fields_that_would_be_ignored() {
    let lumped = "[model]\ndimension = 1\n[[membrane]]\nid = \"m\"\ncolumns = 2\nrows = 2\nmass = 1.0\nstiffness = 1.0\n";
    let e = error(&format!("{lumped}height = 0.3\n"));
    assert_error(&e, 9, 10, "0.3", &["`height`", "no height with lumped elements"]);
    let e = error(&format!("{lumped}spacing = 0.1\n"));
    assert_error(&e, 9, 11, "0.1", &["`spacing`", "no spacing in 1D"]);
}
