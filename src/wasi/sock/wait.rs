//! Blocking socket calls that a stop can end.
//!
//! The host side of every guest socket is non-blocking, whatever the guest
//! asked for: a call that would block (accept, connect, recv, send) is
//! tried, and when the kernel answers `EAGAIN` for a guest socket that
//! blocks, the thread waits in [`blocking::poll`] for the socket to become
//! ready and tries again. That wait also ends when the store's call is
//! asked to stop (`wasm_runtime_terminate`, `iwasm --timeout`, an epoch
//! deadline, the program's end), which a call blocked in the kernel would
//! not notice. The guest's `SO_RCVTIMEO`/`SO_SNDTIMEO` bound the wait, as
//! the kernel would bound a blocking call: when it passes the call answers
//! `EAGAIN`.

use std::os::fd::{AsFd, AsRawFd};
use std::time::{Duration, Instant};

use rustix::net::sockopt::{self, Timeout};

use super::super::types::{Errno, WasiResult};
use super::{os, Socket};
use crate::runtime::vm::blocking::{self, Polled};

/// What a call waits for.
#[derive(Clone, Copy)]
pub enum Ready {
    /// Something to read or accept.
    Read,
    /// Room to write, or a connection's outcome.
    Write,
}

/// How long a wait may last: the socket's timeout for the direction.
struct Deadline(Option<Instant>);

impl Deadline {
    fn of(sock: &Socket, ready: Ready) -> Deadline {
        let id = match ready {
            Ready::Read => Timeout::Recv,
            Ready::Write => Timeout::Send,
        };
        Deadline(sock.timeout(id).and_then(|t| Instant::now().checked_add(t)))
    }

    /// The time left (`None`: no limit); zero once passed.
    fn left(&self) -> Option<Duration> {
        self.0.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// Waits until `sock` is ready for `ready` or `deadline` passes: `EAGAIN`
/// then, and `EINTR` when the call is asked to stop (which the guest never
/// sees: its call traps on the way back).
fn wait(sock: &Socket, ready: Ready, deadline: &Deadline) -> WasiResult {
    let left = deadline.left();
    if left == Some(Duration::ZERO) {
        return Err(Errno::Again);
    }
    let events = match ready {
        Ready::Read => libc::POLLIN,
        Ready::Write => libc::POLLOUT,
    };
    let mut fds = [libc::pollfd { fd: sock.fd.as_raw_fd(), events, revents: 0 }];
    match blocking::poll(&mut fds, left)? {
        Polled::Stopped(_) => Err(Errno::Intr),
        Polled::Ready(0) => Err(Errno::Again),
        Polled::Ready(_) => Ok(()),
    }
}

/// Tries a call on a socket until it does not answer `EAGAIN`, waiting
/// for the socket between tries unless the guest's socket is non-blocking
/// (then `EAGAIN` is the answer). The socket's timeout bounds all the waits
/// of one guest call together, as the kernel bounds a blocking call's.
pub struct Waiter<'a> {
    sock: &'a Socket,
    nonblocking: bool,
    ready: Ready,
    /// Set at the first wait.
    deadline: Option<Deadline>,
    /// Wait before the first try (the caller expects nothing yet).
    wait_first: bool,
}

impl<'a> Waiter<'a> {
    pub fn new(sock: &'a Socket, nonblocking: bool, ready: Ready) -> Waiter<'a> {
        Waiter { sock, nonblocking, ready, deadline: None, wait_first: false }
    }

    /// Makes the next [`retry`](Self::retry) wait for the socket before it
    /// tries (a blocking socket only): when the caller knows the call would
    /// most likely answer `EAGAIN`, that saves the system call.
    pub fn wait_first(&mut self, yes: bool) {
        self.wait_first = yes && !self.nonblocking;
    }

    /// Whether any call of this waiter waited.
    pub fn waited(&self) -> bool {
        self.deadline.is_some()
    }

    /// Waits for the socket (`EAGAIN` once the timeout passed).
    fn wait(&mut self) -> WasiResult {
        let deadline = self.deadline.get_or_insert_with(|| Deadline::of(self.sock, self.ready));
        wait(self.sock, self.ready, deadline)
    }

    /// Runs `op` until it succeeds or fails otherwise than with `EAGAIN`.
    pub fn retry<T>(&mut self, mut op: impl FnMut() -> rustix::io::Result<T>) -> WasiResult<T> {
        if std::mem::take(&mut self.wait_first) {
            self.wait()?;
        }
        loop {
            match op() {
                Err(rustix::io::Errno::AGAIN) if !self.nonblocking => {}
                Err(rustix::io::Errno::INTR) => continue,
                r => return r.map_err(os),
            }
            self.wait()?;
        }
    }
}

/// Waits for a connection started by a non-blocking `connect` to finish,
/// for as long as the socket's send timeout allows (`EINPROGRESS` when it
/// passes, as Linux answers a blocking connect that timed out), and gives
/// its outcome.
pub fn connected(sock: &Socket) -> WasiResult {
    let deadline = Deadline::of(sock, Ready::Write);
    match wait(sock, Ready::Write, &deadline) {
        Err(Errno::Again) => return Err(Errno::Inprogress),
        other => other?,
    }
    sockopt::socket_error(sock.fd.as_fd()).map_err(os)?.map_err(os)
}
