//! One binary runs every sandbox test, two at a time. A few of them reach
//! past their own processes: the hostile fixtures' leftover-process check
//! looks machine-wide, and their fork bomb fills what RLIMIT_NPROC leaves
//! the grader's uid (without root every worker shares it). Those hold the
//! machine [`exclusive`]ly; every recording through `util::record` and
//! every run of the built binary through `TestCommand` holds it
//! [`shared`], so none runs beside them (the sandbox binary records only
//! through those two).

use std::cell::Cell;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static MACHINE: RwLock<()> = RwLock::new(());

thread_local! {
    /// Whether this thread holds the machine exclusively (its own
    /// recordings then need no shared hold).
    static EXCLUSIVE: Cell<bool> = const { Cell::new(false) };
}

/// The machine to this test alone, until dropped.
pub struct Exclusive {
    _guard: RwLockWriteGuard<'static, ()>,
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        EXCLUSIVE.with(|e| e.set(false));
    }
}

/// Waits until no recording or binary runs, then keeps them waiting.
pub fn exclusive() -> Exclusive {
    let guard = MACHINE.write().unwrap_or_else(|e| e.into_inner());
    EXCLUSIVE.with(|e| e.set(true));
    Exclusive { _guard: guard }
}

/// A hold beside other shared ones; `None` in the thread that holds the
/// machine exclusively.
pub fn shared() -> Option<RwLockReadGuard<'static, ()>> {
    if EXCLUSIVE.with(Cell::get) {
        return None;
    }
    Some(MACHINE.read().unwrap_or_else(|e| e.into_inner()))
}
