//! A global allocator that counts this thread's heap operations, for the tests that prove a
//! real-time path allocates nothing. A test binary installs it with
//! `#[global_allocator] static COUNTING: Counting = Counting;`; as the allocator is the whole
//! process's, each such test is a binary of its own (crates/hooke/Cargo.toml).

use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static DEALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting this thread's allocations (reallocations included) and
/// deallocations.
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { Heap.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        DEALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { Heap.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { Heap.realloc(ptr, layout, new_size) }
    }
}

/// Heap operations (allocations, reallocations and deallocations) made by this thread so far:
/// a real-time path may do none of them.
pub fn heap_operations() -> usize {
    ALLOCATIONS.with(Cell::get) + DEALLOCATIONS.with(Cell::get)
}
