//! The model API: builders and `Default` give the same model as every field spelled out; node
//! handles and ids are interchangeable; errors work with `?`; and the spec types a model file
//! reads are the ones a program builds.

use hooke::engine::{PickupError, PickupSpec, Pickups, Quantity};
use hooke::format::model::parse;
use hooke::model::{
    Anchor, BarrierSpec, ChainSpec, CollisionSpec, Damper, ForceSpec, Initial, Mass, MassSelection,
    MembraneSpec, Model, ModelError, Node, NodeRef, Signal, Sinusoid, Spring, StringSpec,
};
use hooke::system::System;
use std::error::Error;

/// Two balls and a post in 2D, every element added with builders, nodes named by handle.
fn balls_with_handles() -> Result<Model, ModelError> {
    let mut model = Model::new(2)?;
    model.set_gravity(&[0.0, -9.81])?;
    let post = model.add_anchor(Anchor::new("post").position([0.0, 0.0]))?;
    let one = model.add_mass(Mass::new("ball.1", 1.0).position([1.0, 0.0]).velocity([0.0, 0.5]).drag(0.1))?;
    let two = model.add_mass(Mass::new("ball.2", 2.0).position([2.0, 0.0]))?;
    model.add_spring(Spring::new(post, one, 100.0).damping(0.5).id("arm"))?;
    model.add_spring(Spring::new(one, two, 50.0).rest_length(0.8))?;
    model.add_damper(Damper::new(post, two, 0.25))?;
    model.add_barrier(BarrierSpec::new([one, two], [0.0, -1.0], [0.0, 2.0], 1e6, 1.5).id("floor"))?;
    model.add_collision(CollisionSpec::new(one, two, 0.2, 1e5, 1.5))?;
    model.add_force(
        ForceSpec::new(two, Signal::Sinusoids(vec![Sinusoid::new(1.0, 50.0).phase(0.5)])).axis(1),
    )?;
    model.set_initial(Initial::new(two).displacement([0.0, 0.1]))?;
    Ok(model)
}

/// The same model, every spec spelled out as a struct (or with `..Default::default()`), nodes
/// named by id.
fn balls_with_ids() -> Result<Model, ModelError> {
    let mut model = Model::new(2)?;
    model.set_gravity(&[0.0, -9.81])?;
    model.add_anchor(Anchor { id: "post".into(), position: vec![0.0, 0.0] })?;
    model.add_mass(Mass {
        id: "ball.1".into(),
        mass: 1.0,
        position: vec![1.0, 0.0],
        velocity: vec![0.0, 0.5],
        drag: 0.1,
    })?;
    model.add_mass(Mass {
        id: "ball.2".into(),
        mass: 2.0,
        position: vec![2.0, 0.0],
        ..Default::default()
    })?;
    model.add_spring(Spring {
        id: Some("arm".into()),
        a: "post".into(),
        b: "ball.1".into(),
        stiffness: 100.0,
        rest_length: None,
        damping: 0.5,
    })?;
    model.add_spring(Spring {
        a: "ball.1".into(),
        b: "ball.2".into(),
        stiffness: 50.0,
        rest_length: Some(0.8),
        ..Default::default()
    })?;
    model.add_damper(Damper { id: None, a: "post".into(), b: "ball.2".into(), damping: 0.25 })?;
    model.add_barrier(BarrierSpec {
        id: Some("floor".into()),
        masses: MassSelection::Prefix("ball.".into()),
        position: vec![0.0, -1.0],
        normal: vec![0.0, 2.0],
        stiffness: 1e6,
        exponent: 1.5,
    })?;
    model.add_collision(CollisionSpec {
        id: None,
        a: "ball.1".into(),
        b: "ball.2".into(),
        distance: 0.2,
        stiffness: 1e5,
        exponent: 1.5,
    })?;
    model.add_force(ForceSpec {
        mass: "ball.2".into(),
        axis: 1,
        signal: Signal::Sinusoids(vec![Sinusoid { amplitude: 1.0, frequency: 50.0, phase: 0.5 }]),
    })?;
    model.set_initial(Initial {
        mass: "ball.2".into(),
        displacement: vec![0.0, 0.1],
        ..Default::default()
    })?;
    Ok(model)
}

/// The same model as a model file.
const BALLS_TOML: &str = r#"
[model]
dimension = 2
gravity = [0.0, -9.81]

[[anchor]]
id = "post"
position = [0.0, 0.0]

[[mass]]
id = "ball.1"
mass = 1.0
position = [1.0, 0.0]
velocity = [0.0, 0.5]
drag = 0.1

[[mass]]
id = "ball.2"
mass = 2.0
position = [2.0, 0.0]

[[spring]]
id = "arm"
a = "post"
b = "ball.1"
stiffness = 100.0
damping = 0.5

[[spring]]
a = "ball.1"
b = "ball.2"
stiffness = 50.0
rest_length = 0.8

[[damper]]
a = "post"
b = "ball.2"
damping = 0.25

[[barrier]]
id = "floor"
masses = "ball.*"
position = [0.0, -1.0]
normal = [0.0, 2.0]
stiffness = 1e6
exponent = 1.5

[[collision]]
a = "ball.1"
b = "ball.2"
distance = 0.2
stiffness = 1e5
exponent = 1.5

[[force]]
mass = "ball.2"
axis = "y"
sinusoids = [{ amplitude = 1.0, frequency = 50.0, phase = 0.5 }]

[[initial]]
mass = "ball.2"
displacement = [0.0, 0.1]
"#;

#[test]
fn builders_handles_struct_literals_ids_and_the_file_make_one_model() {
    let built = balls_with_handles().unwrap();
    let spelled_out = balls_with_ids().unwrap();
    let read = parse(BALLS_TOML, "balls.toml").unwrap().model;
    assert_eq!(built, spelled_out);
    assert_eq!(built, read);
    assert_eq!(System::new(&built), System::new(&read));
}

#[test]
fn generators_are_methods_that_return_their_masses() {
    let mut model = Model::new(1).unwrap();
    let string =
        model.add_string(StringSpec::new("s", 5).mass(1e-3).stiffness(1e3).pluck(0.5, 1e-3)).unwrap();
    assert_eq!(string, (0..5).map(Node::Mass).collect::<Vec<_>>());
    assert_eq!(model.node("s.3"), Some(string[2]));
    assert_eq!(model.masses()[2].position, vec![1e-3], "the pluck's apex");
    let drum = model.add_membrane(MembraneSpec::new("d", 3, 2).mass(1e-3).stiffness(1e3)).unwrap();
    assert_eq!(drum.len(), 6);
    assert_eq!(model.node("d.2.1"), Some(drum[1]), "row by row");
    let chain = model.add_chain(ChainSpec::new("c", string[4], 2, 0.1, [1.0], 1e-3, 10.0).to("s.6")).unwrap();
    assert_eq!(chain, vec![Node::Mass(11), Node::Mass(12)]);
}

#[test]
fn a_handle_of_no_node_of_the_model_is_an_error() {
    let mut model = Model::new(1).unwrap();
    let ground = model.add_anchor(Anchor::new("ground")).unwrap();
    let error = model.add_spring(Spring::new(ground, Node::Mass(3), 1.0)).unwrap_err();
    assert_eq!(error.field, "b");
    assert_eq!(error.found, "mass #3");
    assert!(error.to_string().contains("expected a node of this model"), "{error}");
}

#[test]
fn a_mass_without_a_position_is_at_the_origin_in_1d_only() {
    let mut model = Model::new(1).unwrap();
    model.add_mass(Mass::new("m", 1.0)).unwrap();
    assert_eq!((&model.masses()[0].position, &model.masses()[0].velocity), (&vec![0.0], &vec![0.0]));
    let mut plane = Model::new(2).unwrap();
    let error = plane.add_mass(Mass::new("m", 1.0)).unwrap_err();
    assert_eq!((error.field, error.found.as_str()), ("position", "nothing"));
}

/// Pickups on a string by handle, with `?` into `Box<dyn Error>`.
fn pickups(model: &Model, masses: &[Node]) -> Result<Pickups, Box<dyn Error>> {
    let specs = [
        PickupSpec::position(masses[0]),
        PickupSpec::velocity(masses[1]).channel(2).weight(0.5),
        PickupSpec::position("s.9").channel(3),
    ];
    Ok(Pickups::new(&specs, model)?)
}

#[test]
fn pickup_errors_are_errors_that_name_the_spec() {
    let mut model = Model::new(1).unwrap();
    let masses = model.add_string(StringSpec::new("s", 3).mass(1e-3).stiffness(1e3)).unwrap();
    let error = pickups(&model, &masses).unwrap_err();
    let error = error.downcast_ref::<PickupError>().expect("a PickupError");
    assert_eq!((error.index, error.error.field), (2, "mass"));
    assert!(error.to_string().contains("unknown id \"s.9\""), "{error}");
    assert!(error.source().is_some());
    let good = [PickupSpec::position(masses[0]), PickupSpec::velocity("s.2").channel(2)];
    assert_eq!(Pickups::new(&good, &model).unwrap().channel_count(), 2);
}

#[test]
fn spec_types_read_from_toml_equal_those_built_in_code() {
    let mass: Mass = toml::from_str("id = \"m\"\nmass = 0.01\nposition = 0.1\ndrag = 2").unwrap();
    assert_eq!(mass, Mass::new("m", 0.01).position([0.1]).drag(2.0));
    let spring: Spring = toml::from_str("a = \"x\"\nb = \"y\"\nstiffness = 5\ndamping = 0.1").unwrap();
    assert_eq!(spring, Spring::new("x", "y", 5.0).damping(0.1));
    let string: StringSpec = toml::from_str(
        "id = \"s\"\nmasses = 50\nlength = 0.65\ntension = 98.2\nlinear_density = 1.2e-3\n\
         decay_time = 1.5\npluck = { position = 0.3, amplitude = 1e-3 }",
    )
    .unwrap();
    let physical = StringSpec::new("s", 50).length(0.65).tension(98.2).linear_density(1.2e-3);
    assert_eq!(string, physical.decay_time(1.5).pluck(0.3, 1e-3));
    let barrier: BarrierSpec = toml::from_str(
        "masses = [\"a\", \"b\"]\nposition = 0.0\nnormal = -1\nstiffness = 1e9\nexponent = 1.5",
    )
    .unwrap();
    assert_eq!(barrier, BarrierSpec::new(["a", "b"], [0.0], [-1.0], 1e9, 1.5));
    let chain: ChainSpec = toml::from_str(
        "id = \"c\"\nfrom = \"top\"\nmasses = 3\nlink_length = 0.5\ndirection = [0.0, -1.0]\nmass = 1\n\
         stiffness = 100",
    )
    .unwrap();
    assert_eq!(chain, ChainSpec::new("c", "top", 3, 0.5, [0.0, -1.0], 1.0, 100.0));
    let pickup: PickupSpec = toml::from_str("mass = \"s.4\"\nquantity = \"velocity\"\nchannel = 2").unwrap();
    assert_eq!(pickup, PickupSpec::velocity("s.4").channel(2));
    assert_eq!(pickup.quantity, Quantity::Velocity);
    assert_eq!(NodeRef::from("s.4"), pickup.mass);
}

#[test]
fn model_errors_go_into_box_dyn_error() {
    fn build() -> Result<Model, Box<dyn Error>> {
        let mut model = Model::new(1)?;
        model.add_mass(Mass::new("m", 0.0))?;
        Ok(model)
    }
    let error = build().unwrap_err();
    let error = error.downcast_ref::<ModelError>().expect("a ModelError");
    assert_eq!((error.field, error.expected.as_str(), error.found.as_str()), ("mass", "a value > 0", "0"));
}

#[test]
fn names_in_a_file_that_are_not_an_axis_or_a_quantity_are_located_errors() {
    let base = "[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 1.0\n[[pickup]]\nmass = \"m\"\n";
    let error = parse(&format!("{base}axis = \"w\"\n"), "bad.toml").unwrap_err();
    assert_eq!((error.line, error.column, error.found.as_str()), (8, 8, "\"w\""), "{error}");
    assert!(error.message.contains("`axis`: expected \"x\", \"y\" or \"z\", found \"w\""), "{error}");
    let error = parse(&format!("{base}quantity = \"speed\"\n"), "bad.toml").unwrap_err();
    assert_eq!((error.line, error.column), (8, 12), "{error}");
    assert!(error.message.contains("expected \"position\" or \"velocity\", found \"speed\""), "{error}");
    let error =
        parse("[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = []\n", "bad.toml")
            .unwrap_err();
    assert_eq!((error.line, error.column), (6, 12), "{error}");
    assert!(error.message.contains("expected a number or an array of numbers"), "{error}");
}

/// `System::spring_between` and `damper_between` find the first link joining two nodes either
/// way round, as a scan of every link does: on a chain of strings on one bridge with a second
/// spring between two nodes already joined, written the other way round.
#[test]
fn the_link_between_two_nodes_is_the_first_that_joins_them_either_way() -> Result<(), ModelError> {
    let mut model = Model::new(1)?;
    let bridge = model.add_mass(Mass::new("bridge", 0.1))?;
    for s in 0..3 {
        model.add_string(
            StringSpec::new(format!("s{s}"), 5).mass(1e-3).stiffness(1e3).damping(1e-3).to(bridge),
        )?;
    }
    model.add_spring(Spring::new("s1.5", "s1.4", 7.0))?;
    model.add_damper(Damper::new("bridge", "s2.5", 0.5))?;
    let system = System::new(&model);
    let scan = |ends: (&[u32], &[u32]), a: usize, b: usize| {
        let (a, b) = (a as u32, b as u32);
        (0..ends.0.len()).find(|&i| (ends.0[i], ends.1[i]) == (a, b) || (ends.0[i], ends.1[i]) == (b, a))
    };
    let (springs, dampers) = (system.springs(), system.dampers());
    let nodes = system.node_ids().len();
    let (mut joined, mut apart) = (0, 0);
    for a in 0..nodes {
        for b in 0..nodes {
            let found = system.spring_between(a, b);
            assert_eq!(found, scan((&springs.a, &springs.b), a, b), "springs {a}-{b}");
            assert_eq!(system.damper_between(a, b), scan((&dampers.a, &dampers.b), a, b), "dampers {a}-{b}");
            if found.is_some() {
                joined += 1
            } else {
                apart += 1
            }
        }
    }
    assert!(joined > 30 && apart > 100, "{joined} joined pairs, {apart} apart");
    Ok(())
}
