//! One test per validation rule: the error names file, line and column, the offending text and
//! what was expected. No bad file panics.

use hooke::format::model::parse;
use hooke::format::SourceError;

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
    assert_error(&e, 6, 8, "\"heavy\"", &["invalid type", "expected a number"]);
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

// ---- Contacts ([[barrier]], [[collision]]) and external forces ([[force]]) ----

/// Two balls and a post in 2D: lines 1-16.
const BALLS_2D: &str = r#"[model]
dimension = 2

[[anchor]]
id = "post"
position = [0.0, 0.0]

[[mass]]
id = "ball.1"
mass = 1.0
position = [1.0, 0.0]

[[mass]]
id = "ball.2"
mass = 1.0
position = [2.0, 0.0]
"#;

/// One mass on a spring in 1D: lines 1-9.
const REED_1D: &str = r#"[model]
dimension = 1
[[anchor]]
id = "rest"
[[mass]]
id = "reed"
mass = 0.05
[[spring]]
a = "rest"
b = "reed"
stiffness = 1.0e7
"#;

/// A valid 2D barrier on both balls (line 17 is `[[barrier]]`, `masses` is line 18), with
/// `extra` appended after its fields and `replace` applied first.
fn barrier_2d(replace: (&str, &str), extra: &str) -> String {
    let barrier = "[[barrier]]\nmasses = \"ball.*\"\nposition = [0.0, -1.0]\nnormal = [0.0, 1.0]\nstiffness = 1.0e6\nexponent = 1.5\n";
    assert!(replace.0.is_empty() || barrier.contains(replace.0), "{}", replace.0);
    let barrier =
        if replace.0.is_empty() { barrier.to_string() } else { barrier.replace(replace.0, replace.1) };
    format!("{BALLS_2D}{barrier}{extra}")
}

/// A valid 2D collision of the two balls (line 17 is `[[collision]]`), with `replace` applied.
fn collision_2d(replace: (&str, &str)) -> String {
    let collision =
        "[[collision]]\na = \"ball.1\"\nb = \"ball.2\"\ndistance = 0.2\nstiffness = 1.0e6\nexponent = 1.5\n";
    assert!(collision.contains(replace.0), "{}", replace.0);
    format!("{BALLS_2D}{}", collision.replace(replace.0, replace.1))
}

#[test]
fn the_contact_and_force_base_files_are_valid() {
    parse(&barrier_2d(("", ""), ""), "good.toml").unwrap();
    parse(&collision_2d(("a = ", "a = ")), "good.toml").unwrap();
    parse(&format!("{REED_1D}[[force]]\nmass = \"reed\"\nconstant = 1.0\n"), "good.toml").unwrap();
}

#[test]
fn barrier_on_an_unknown_mass() {
    let e = error(&barrier_2d(("\"ball.*\"", "[\"ball.1\", \"ghost\"]"), ""));
    assert_error(
        &e,
        18,
        10,
        "[\"ball.1\", \"ghost\"]",
        &["barrier", "`masses`", "the id of a mass defined in the model", "unknown id \"ghost\""],
    );
}

#[test]
fn barrier_on_an_anchor() {
    let e = error(&barrier_2d(("\"ball.*\"", "[\"post\"]"), ""));
    assert_error(
        &e,
        18,
        10,
        "[\"post\"]",
        &["`masses`", "the id of a mass (anchors do not move)", "anchor \"post\""],
    );
}

#[test]
fn barrier_pattern_that_matches_no_mass() {
    let e = error(&barrier_2d(("\"ball.*\"", "\"post*\""), ""));
    assert_error(
        &e,
        18,
        10,
        "\"post*\"",
        &["`masses`", "at least one mass", "\"post*\", which matches no mass"],
    );
}

#[test]
fn barrier_with_a_mass_listed_twice() {
    let e = error(&barrier_2d(("\"ball.*\"", "[\"ball.1\", \"ball.1\"]"), ""));
    assert_error(&e, 18, 10, "[\"ball.1\", \"ball.1\"]", &["`masses`", "each mass once", "\"ball.1\" twice"]);
}

#[test]
fn barrier_with_an_empty_mass_list() {
    let e = error(&barrier_2d(("\"ball.*\"", "[]"), ""));
    assert_error(&e, 18, 10, "[]", &["`masses`", "at least one mass", "an empty list"]);
}

#[test]
fn barrier_exponent_below_one() {
    let e = error(&barrier_2d(("exponent = 1.5", "exponent = 0.5"), ""));
    assert_error(&e, 22, 12, "0.5", &["barrier", "`exponent`", "a Hertz exponent >= 1", "found 0.5"]);
}

#[test]
fn barrier_negative_stiffness() {
    let e = error(&barrier_2d(("stiffness = 1.0e6", "stiffness = -1.0e6"), ""));
    assert_error(&e, 21, 13, "-1.0e6", &["`stiffness`", "a value >= 0", "found -1000000"]);
}

#[test]
fn barrier_non_finite_position_and_stiffness() {
    let e = error(&barrier_2d(("[0.0, -1.0]", "[nan, -1.0]"), ""));
    assert_error(&e, 19, 12, "[nan, -1.0]", &["`position`", "a finite number", "found NaN"]);
    let e = error(&barrier_2d(("stiffness = 1.0e6", "stiffness = inf"), ""));
    assert_error(&e, 21, 13, "inf", &["`stiffness`", "a finite number", "found inf"]);
}

#[test]
fn barrier_zero_normal() {
    let e = error(&barrier_2d(("[0.0, 1.0]", "[0.0, 0.0]"), ""));
    assert_error(&e, 20, 10, "[0.0, 0.0]", &["`normal`", "a non-zero vector pointing to the free side"]);
}

#[test]
fn barrier_vectors_of_the_wrong_length() {
    let e = error(&barrier_2d(("[0.0, 1.0]", "[1.0]"), ""));
    assert_error(&e, 20, 10, "[1.0]", &["`normal`", "2 component(s) for a 2D model", "found 1 component(s)"]);
    let e = error(&barrier_2d(("[0.0, -1.0]", "-1.0"), ""));
    assert_error(&e, 19, 12, "-1.0", &["`position`", "2 component(s) for a 2D model"]);
}

#[test]
fn barrier_1d_normal_other_than_plus_or_minus_one() {
    let e = error(&format!(
        "{REED_1D}[[barrier]]\nmasses = \"reed\"\nposition = 2.4e-4\nnormal = 0.5\nstiffness = 1e12\nexponent = 1.5\n"
    ));
    assert_error(&e, 15, 10, "0.5", &["`normal`", "+1 or -1 in 1D", "found 0.5"]);
}

#[test]
fn barrier_unknown_field_and_missing_exponent() {
    let e = error(&barrier_2d(("", ""), "stifness = 1.0\n"));
    assert_error(&e, 23, 1, "stifness", &["unknown field `stifness`", "`exponent`"]);
    let e = error(&barrier_2d(("exponent = 1.5\n", ""), ""));
    assert_error(&e, 17, 1, "[[barrier]]", &["missing field `exponent`"]);
}

#[test]
fn barrier_id_already_used() {
    let e = error(&barrier_2d(("", ""), "id = \"ball.2\"\n"));
    assert_error(&e, 23, 6, "\"ball.2\"", &["barrier \"ball.2\"", "`id`", "duplicate id \"ball.2\""]);
}

#[test]
fn collision_with_an_unknown_mass() {
    let e = error(&collision_2d(("b = \"ball.2\"", "b = \"ball.3\"")));
    assert_error(
        &e,
        19,
        5,
        "\"ball.3\"",
        &["collision of \"ball.1\" and \"ball.3\"", "`b`", "unknown id \"ball.3\""],
    );
}

#[test]
fn collision_with_an_anchor() {
    let e = error(&collision_2d(("a = \"ball.1\"", "a = \"post\"")));
    assert_error(
        &e,
        18,
        5,
        "\"post\"",
        &["`a`", "the id of a mass (anchors do not move)", "anchor \"post\""],
    );
}

#[test]
fn collision_of_a_mass_with_itself() {
    let e = error(&collision_2d(("b = \"ball.2\"", "b = \"ball.1\"")));
    assert_error(&e, 19, 5, "\"ball.1\"", &["`b`", "a mass other than a"]);
}

#[test]
fn collision_zero_and_negative_distance() {
    let e = error(&collision_2d(("distance = 0.2", "distance = 0.0")));
    assert_error(&e, 20, 12, "0.0", &["`distance`", "a value > 0", "found 0"]);
    let e = error(&collision_2d(("distance = 0.2", "distance = -0.2")));
    assert_error(&e, 20, 12, "-0.2", &["`distance`", "a value > 0", "found -0.2"]);
}

#[test]
fn collision_exponent_below_one_and_infinite() {
    let e = error(&collision_2d(("exponent = 1.5", "exponent = 0.99")));
    assert_error(&e, 22, 12, "0.99", &["`exponent`", "a Hertz exponent >= 1"]);
    let e = error(&collision_2d(("exponent = 1.5", "exponent = inf")));
    assert_error(&e, 22, 12, "inf", &["`exponent`", "a finite number"]);
}

#[test]
fn collision_negative_stiffness() {
    let e = error(&collision_2d(("stiffness = 1.0e6", "stiffness = -5.0")));
    assert_error(&e, 21, 13, "-5.0", &["`stiffness`", "a value >= 0"]);
}

#[test]
fn collision_of_masses_at_the_same_position() {
    let source = collision_2d(("a = ", "a = ")).replace("position = [2.0, 0.0]", "position = [1.0, 0.0]");
    let e = error(&source);
    assert_error(&e, 19, 5, "\"ball.2\"", &["`b`", "masses at distinct positions"]);
}

#[test]
fn collision_unknown_field() {
    let e = error(&collision_2d(("distance = 0.2", "radius = 0.2")));
    assert_error(&e, 20, 1, "radius", &["unknown field `radius`", "`distance`"]);
}

/// `REED_1D` plus a `[[force]]` whose fields start on line 13.
fn force_1d(fields: &str) -> String {
    format!("{REED_1D}[[force]]\nmass = \"reed\"\n{fields}")
}

#[test]
fn force_without_a_signal() {
    let e = error(&force_1d("axis = \"x\"\n"));
    assert_error(
        &e,
        12,
        1,
        "[[force]]",
        &["force on \"reed\"", "one of `constant`, `sinusoids` or `wav`", "none of them"],
    );
}

#[test]
fn force_with_two_signals() {
    let e = error(&force_1d("constant = 1.0\nsinusoids = [{ amplitude = 1.0, frequency = 100.0 }]\n"));
    assert_error(
        &e,
        15,
        13,
        "[{ amplitude = 1.0, frequency = 100.0 }]",
        &["`sinusoids`", "only one of `constant`, `sinusoids` or `wav`", "`constant` and `sinusoids`"],
    );
    let e = error(&force_1d("constant = 1.0\nwav = \"drive.wav\"\ngain = 1.0\n"));
    assert_error(&e, 15, 7, "\"drive.wav\"", &["`wav`", "`constant` and `wav`"]);
}

#[test]
fn force_negative_frequency_points_at_the_sinusoid() {
    let e = error(&force_1d(
        "sinusoids = [\n  { amplitude = 1.0, frequency = 100.0 },\n  { amplitude = 2.0, frequency = -50.0 },\n]\n",
    ));
    assert_error(
        &e,
        16,
        34,
        "-50.0",
        &["force on \"reed\", sinusoid 2", "`frequency`", "a value >= 0", "found -50"],
    );
}

#[test]
fn force_non_finite_values() {
    let e = error(&force_1d("constant = nan\n"));
    assert_error(&e, 14, 12, "nan", &["`constant`", "a finite number"]);
    let e = error(&force_1d("sinusoids = [{ amplitude = inf, frequency = 1.0 }]\n"));
    assert_error(&e, 14, 28, "inf", &["sinusoid 1", "`amplitude`", "a finite number"]);
    let e = error(&force_1d("sinusoids = [{ amplitude = 1.0, frequency = 1.0, phase = -inf }]\n"));
    assert_error(&e, 14, 58, "-inf", &["`phase`", "a finite number"]);
}

#[test]
fn force_with_no_sinusoid() {
    let e = error(&force_1d("sinusoids = []\n"));
    assert_error(&e, 14, 13, "[]", &["`sinusoids`", "at least one sinusoid"]);
}

#[test]
fn sinusoid_unknown_field() {
    let e = error(&force_1d("sinusoids = [{ amplitude = 1.0, frequency = 1.0, freq = 2.0 }]\n"));
    assert_error(&e, 14, 50, "freq", &["unknown field `freq`"]);
}

#[test]
fn force_on_an_unknown_mass_or_an_anchor() {
    let e = error(&format!("{REED_1D}[[force]]\nmass = \"red\"\nconstant = 1.0\n"));
    assert_error(&e, 13, 8, "\"red\"", &["force on \"red\"", "`mass`", "unknown id \"red\""]);
    let e = error(&format!("{REED_1D}[[force]]\nmass = \"rest\"\nconstant = 1.0\n"));
    assert_error(&e, 13, 8, "\"rest\"", &["`mass`", "anchors do not move"]);
}

#[test]
fn force_axis_beyond_the_dimension() {
    let e = error(&force_1d("axis = \"y\"\nconstant = 1.0\n"));
    assert_error(&e, 14, 8, "\"y\"", &["`axis`", "one of the model's 1 axes (x)", "found y"]);
    let e = error(&force_1d("axis = \"w\"\nconstant = 1.0\n"));
    assert_error(&e, 14, 8, "\"w\"", &["`axis`", "\"x\", \"y\" or \"z\""]);
}

#[test]
fn force_channel_or_gain_without_wav() {
    let e = error(&force_1d("constant = 1.0\nchannel = 2\n"));
    assert_error(&e, 15, 11, "2", &["`channel`", "`channel` only with `wav`"]);
    let e = error(&force_1d("constant = 1.0\ngain = 2.0\n"));
    assert_error(&e, 15, 8, "2.0", &["`gain`", "`gain` only with `wav`"]);
}

/// Writes a 16-bit WAV file with `channels` interleaved channels into a fresh temporary folder.
fn temporary_wav(name: &str, channels: u16, samples: &[i16]) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("hooke-bad-input-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!("{name}.wav"));
    let spec = hound::WavSpec {
        channels,
        sample_rate: 8000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(&path, spec).unwrap();
    for &s in samples {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
    path
}

#[test]
fn force_wav_file_missing() {
    let missing = std::env::temp_dir().join(format!("hooke-no-such-{}.wav", std::process::id()));
    let e = error(&force_1d(&format!("wav = '{}'\ngain = 1.0\n", missing.display())));
    assert_error(
        &e,
        14,
        7,
        &format!("'{}'", missing.display()),
        &["`wav`", "a readable WAV file", &format!("\"{}\"", missing.display())],
    );
}

#[test]
fn force_wav_file_that_is_not_a_wav() {
    let folder = std::env::temp_dir().join(format!("hooke-bad-input-{}-text", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("not-a.wav");
    std::fs::write(&path, "this is text").unwrap();
    let e = error(&force_1d(&format!("wav = '{}'\ngain = 1.0\n", path.display())));
    assert_error(&e, 14, 7, &format!("'{}'", path.display()), &["`wav`", "a readable WAV file"]);
}

#[test]
fn force_wav_channel_beyond_the_file() {
    let path = temporary_wav("stereo", 2, &[1, 2, 3, 4]);
    let e = error(&force_1d(&format!("wav = '{}'\nchannel = 3\ngain = 1.0\n", path.display())));
    assert_error(&e, 15, 11, "3", &["`channel`", "(1 to 2)", "found 3"]);
    let e = error(&force_1d(&format!("wav = '{}'\nchannel = 0\ngain = 1.0\n", path.display())));
    assert_error(&e, 15, 11, "0", &["`channel`", "(1 to 2)", "found 0"]);
}

#[test]
fn force_wav_without_gain() {
    let path = temporary_wav("mono", 1, &[1, 2, 3]);
    let e = error(&force_1d(&format!("wav = '{}'\n", path.display())));
    assert_error(&e, 12, 1, "[[force]]", &["`gain`", "required with `wav`", "found nothing"]);
}

#[test]
fn force_wav_with_a_non_finite_sample() {
    let folder = std::env::temp_dir().join(format!("hooke-bad-input-{}-nan", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("nan.wav");
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 8000,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let mut writer = hound::WavWriter::create(&path, spec).unwrap();
    for s in [0.5_f32, f32::NAN, 0.25] {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
    let e = error(&force_1d(&format!("wav = '{}'\ngain = 10.0\n", path.display())));
    assert_error(
        &e,
        14,
        7,
        &format!("'{}'", path.display()),
        &["`wav`", "finite samples", "NaN at sample 1"],
    );
}

#[test]
fn force_unknown_field() {
    let e = error(&force_1d("amplitude = 1.0\n"));
    assert_error(&e, 14, 1, "amplitude", &["unknown field `amplitude`", "`sinusoids`", "`wav`"]);
}
