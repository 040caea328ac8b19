//! Host calls that block, and the stop of their store's call: WASI's
//! `poll_oneoff` (a guest's `sleep`, or a wait for its stdin), reads of
//! the host's streams, and blocking socket calls.
//!
//! An interrupt stops compiled code with a signal. It stops a host
//! function only when that returns, so a guest sleeping for an hour would
//! keep its call for an hour: an embedder's `interrupt`, or the end of a
//! program whose other thread exited, would wait as long. Host functions
//! that block therefore wait with [`poll`]: it polls, next to their fds, an
//! event descriptor ([`super::os::event`]; the thread's own, kept from
//! wait to wait) that a stop request for their store writes ([`interrupted`],
//! called by [`InterruptState::request`]), and returns early with the
//! request's trap code.
//!
//! The store is the one whose WASI function runs innermost on this thread:
//! WASI's host functions record it ([`HostCall`]) when the store can be
//! stopped at all, so other stores, and other host functions, pay nothing. No wakeup is lost: a waiter is
//! counted before it looks at the request, and a requester sets the
//! request before it looks at the count (both fence), as in the parking
//! lot.

use std::cell::{Cell, OnceCell};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::interrupt::InterruptState;
use super::os;
use crate::environ::trap::TrapCode;

thread_local! {
    /// The interruption state of the store whose host function runs
    /// innermost on this thread, if it has one.
    static CURRENT: Cell<*const InterruptState> = const { Cell::new(std::ptr::null()) };
    /// This thread's event descriptor for [`poll`], made at its first wait and kept
    /// (closed when the thread ends): a guest blocking on a socket for
    /// every message would otherwise pay two more system calls a message.
    /// (A wait unregisters it before it returns, so it is never closed
    /// while registered.)
    static EVENT: OnceCell<OwnedFd> = const { OnceCell::new() };
}

/// This thread's event descriptor, made on first use.
fn thread_event() -> io::Result<RawFd> {
    EVENT.with(|e| {
        if let Some(fd) = e.get() {
            return Ok(fd.as_raw_fd());
        }
        let fd = os::event()?;
        Ok(e.get_or_init(|| fd).as_raw_fd())
    })
}

/// Marks this thread as running a host function of the store with `state`
/// until dropped (a nested one restores the outer one's store).
pub struct HostCall {
    outer: *const InterruptState,
}

impl HostCall {
    /// `state` must stay alive until the guard is dropped (the store's own
    /// state, for the duration of one of its host calls).
    #[inline]
    pub fn enter(state: &InterruptState) -> HostCall {
        HostCall { outer: CURRENT.with(|c| c.replace(state)) }
    }
}

impl Drop for HostCall {
    #[inline]
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.outer));
    }
}

/// Waits registered for a stop request: the store's state (as an address,
/// only compared) and the event descriptor to signal.
static WAITERS: Mutex<Vec<(usize, RawFd)>> = Mutex::new(Vec::new());
/// How many are registered: while none is, a request takes no lock.
static COUNT: AtomicUsize = AtomicUsize::new(0);

fn waiters() -> MutexGuard<'static, Vec<(usize, RawFd)>> {
    WAITERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stop was requested for the store with `state` (after the request was
/// set and fenced): wakes its host functions waiting in [`poll`].
pub fn interrupted(state: &InterruptState) {
    if COUNT.load(Ordering::SeqCst) == 0 {
        return;
    }
    let id = state as *const InterruptState as usize;
    for (_, fd) in waiters().iter().filter(|(s, _)| *s == id) {
        // A registered event descriptor stays open while registered (under this lock).
        os::event_signal(*fd);
    }
}

/// Whether a stop could end a [`poll`] of this thread now: it runs a host
/// function of a store that can be stopped.
#[inline]
pub fn stoppable() -> bool {
    !CURRENT.with(Cell::get).is_null()
}

/// How a [`poll`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Polled {
    /// This many of the fds are ready (0: the timeout passed).
    Ready(usize),
    /// The store of the host call is asked to stop: its trap code.
    Stopped(TrapCode),
}

/// Waits, as `poll(2)` does, until one of `fds` is ready or `timeout`
/// passes (`None`: no timeout). When this thread runs a host function of
/// a store that can be stopped, a stop requested before or during the
/// wait ends it. An `fds` that is empty makes it a sleep.
pub fn poll(fds: &mut [libc::pollfd], timeout: Option<Duration>) -> io::Result<Polled> {
    if fds.is_empty() && timeout == Some(Duration::ZERO) {
        // A sleep of nothing (a guest yielding): no system call.
        return Ok(Polled::Ready(0));
    }
    let state = CURRENT.with(Cell::get);
    if state.is_null() || timeout == Some(Duration::ZERO) {
        return os::ppoll(fds, timeout.and_then(|t| Instant::now().checked_add(t))).map(Polled::Ready);
    }
    // SAFETY: `HostCall::enter`'s caller keeps the state alive for the
    // host call this runs in.
    let state = unsafe { &*state };
    let event = thread_event()?;
    let id = state as *const InterruptState as usize;
    waiters().push((id, event));
    COUNT.fetch_add(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    let mut all = Vec::with_capacity(fds.len() + 1);
    all.extend_from_slice(fds);
    all.push(libc::pollfd { fd: event, events: libc::POLLIN, revents: 0 });
    let result = loop {
        if let Some(code) = state.pending() {
            break Ok(Polled::Stopped(code));
        }
        let n = match os::ppoll(&mut all, deadline) {
            Ok(n) => n,
            Err(e) => break Err(e),
        };
        if let Some(code) = state.pending() {
            break Ok(Polled::Stopped(code));
        }
        let woken = all[fds.len()].revents != 0;
        if !woken || n > 1 {
            fds.copy_from_slice(&all[..fds.len()]);
            break Ok(Polled::Ready(n - usize::from(woken)));
        }
        // Woken for a request withdrawn since: clear the event, wait on.
        os::event_clear(event);
    };
    waiters().retain(|(_, fd)| *fd != event);
    COUNT.fetch_sub(1, Ordering::SeqCst);
    if all[fds.len()].revents != 0 {
        // The thread's next wait starts from a cleared event.
        os::event_clear(event);
    }
    result
}
