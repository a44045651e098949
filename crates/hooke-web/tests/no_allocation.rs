//! The worklet's `process` calls `hooke_render` (or `hooke_live_render`) for each block: once a
//! block of that size has been rendered after a change (a pluck, a tension), rendering allocates
//! and frees nothing, and an instrument's blocks allocate nothing while notes are played, as a
//! counting global allocator proves.

#[path = "../../hooke/tests/counting/mod.rs"]
mod counting;
use counting::{heap_operations, Counting};
use hooke_web::{
    hooke_drop, hooke_load, hooke_pluck, hooke_render, hooke_set_damping, hooke_set_mass, hooke_set_tension,
};

#[global_allocator]
static COUNTING: Counting = Counting;

#[test]
fn rendering_blocks_through_the_exports_allocates_nothing() {
    let path = format!("{}/../../examples/plucked-string.toml", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let name = "plucked-string.toml";
    // SAFETY: the pointers are those of live strings; the handle is used, then dropped, once.
    unsafe {
        let handle = hooke_load(source.as_ptr(), source.len(), name.as_ptr(), name.len(), -1, 0.0);
        assert!(!handle.is_null());
        let mut blocks_allocating = Vec::new();
        for change in 0..4 {
            match change {
                0 => assert_eq!(hooke_set_tension(handle, 1.5), 0),
                1 => assert_eq!(hooke_set_damping(handle, 0.5), 0),
                2 => assert_eq!(hooke_set_mass(handle, 2.0), 0),
                _ => assert_eq!(hooke_pluck(handle, 0.3, 1e-3), 0),
            }
            assert!(!hooke_render(handle, 512).is_null());
            let before = heap_operations();
            for _ in 0..100 {
                assert!(!hooke_render(handle, 512).is_null());
            }
            blocks_allocating.push(heap_operations() - before);
        }
        hooke_drop(handle);
        assert_eq!(blocks_allocating, [0, 0, 0, 0], "heap operations in 100 blocks after each change");
    }
}

#[test]
fn playing_an_instrument_live_allocates_nothing() {
    use hooke_web::{hooke_live_drop, hooke_live_load, hooke_live_note, hooke_live_render};
    let path = format!("{}/../../examples/instruments/guitar.toml", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let name = "guitar.toml";
    // SAFETY: the pointers are those of live strings; the handle is used, then dropped, once.
    unsafe {
        let handle = hooke_live_load(source.as_ptr(), source.len(), name.as_ptr(), name.len(), 44_100.0, -1);
        assert!(!handle.is_null());
        hooke_live_render(handle, 512);
        // The notes go in between blocks (the worklet's message handler, the input side, which
        // may allocate); the blocks are counted.
        let mut operations = 0;
        for (block, note) in (0..200).zip([40u8, 45, 50, 55, 59, 64].iter().cycle()) {
            if block % 20 == 0 {
                assert_eq!(hooke_live_note(handle, *note, 100), 0);
            }
            let before = heap_operations();
            hooke_live_render(handle, 512);
            operations += heap_operations() - before;
        }
        hooke_live_drop(handle);
        assert_eq!(operations, 0, "heap operations while playing notes");
    }
}
