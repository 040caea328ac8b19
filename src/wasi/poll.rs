//! `poll_oneoff`: wait for clocks and fds. Files, directories and
//! in-memory pipes are always ready; the host's own stdio streams and
//! sockets are polled with `poll(2)`, with the nearest clock as the
//! timeout.

use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use super::ctx::{Kind, Stream, WasiCtx};
use super::guest::GuestMemory;
use super::types::{eventtype, rights, size, Errno, WasiResult, EVENT_FD_READWRITE_HANGUP, SUBSCRIPTION_CLOCK_ABSTIME};
use crate::runtime::vm::blocking::{self, Polled};

/// One event to report.
struct Event {
    userdata: u64,
    error: Errno,
    kind: u8,
    nbytes: u64,
    flags: u16,
}

impl Event {
    fn to_bytes(&self) -> [u8; size::EVENT as usize] {
        let mut b = [0u8; size::EVENT as usize];
        b[0..8].copy_from_slice(&self.userdata.to_le_bytes());
        b[8..10].copy_from_slice(&(self.error as u16).to_le_bytes());
        b[10] = self.kind;
        b[16..24].copy_from_slice(&self.nbytes.to_le_bytes());
        b[24..26].copy_from_slice(&self.flags.to_le_bytes());
        b
    }
}

/// A host fd to wait on, and the subscription it answers.
struct Waiting {
    userdata: u64,
    kind: u8,
    fd: i32,
}

pub fn poll_oneoff(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    subs: u32,
    events: u32,
    n: u32,
    out: u32,
) -> WasiResult {
    if n == 0 {
        return Err(Errno::Inval);
    }
    mem.check_array(subs, n, size::SUBSCRIPTION)?;
    mem.check_array(events, n, size::EVENT)?;
    let mut ready = Vec::new();
    let mut waiting = Vec::new();
    // The entries of `waiting`'s fds, kept open until the poll is over
    // (another thread of the program may close their fd numbers meanwhile).
    let mut held = Vec::new();
    // The nearest clock: (time left, userdata).
    let mut timer: Option<(Duration, Vec<u64>)> = None;
    for i in 0..n {
        let at = subs + i * size::SUBSCRIPTION;
        let userdata = mem.read_u64(at)?;
        let tag = mem.slice(at + 8, 1)?[0];
        match tag {
            eventtype::CLOCK => {
                let id = mem.read_u32(at + 16)?;
                let timeout = mem.read_u64(at + 24)?;
                let flags = u16::from_le_bytes(mem.slice(at + 40, 2)?.try_into().expect("2 bytes"));
                let left = match cx.clocks.now(id) {
                    Ok(now) if flags & SUBSCRIPTION_CLOCK_ABSTIME != 0 => timeout.saturating_sub(now),
                    Ok(_) => timeout,
                    Err(e) => {
                        ready.push(Event { userdata, error: e, kind: tag, nbytes: 0, flags: 0 });
                        continue;
                    }
                };
                let left = Duration::from_nanos(left);
                match &mut timer {
                    Some((t, ids)) if *t == left => ids.push(userdata),
                    Some((t, _)) if *t < left => {}
                    _ => timer = Some((left, vec![userdata])),
                }
            }
            eventtype::FD_READ | eventtype::FD_WRITE => {
                let fd = mem.read_u32(at + 16)?;
                let e = match cx.get(fd, rights::POLL_FD_READWRITE) {
                    Ok(e) => e,
                    Err(error) => {
                        ready.push(Event { userdata, error, kind: tag, nbytes: 0, flags: 0 });
                        continue;
                    }
                };
                let nbytes = match &e.kind {
                    Kind::Stream(Stream::Host(f)) => {
                        waiting.push(Waiting { userdata, kind: tag, fd: f.as_raw_fd() });
                        held.push(e);
                        continue;
                    }
                    Kind::Socket(s) => {
                        waiting.push(Waiting { userdata, kind: tag, fd: s.as_fd().as_raw_fd() });
                        held.push(e);
                        continue;
                    }
                    Kind::Stream(Stream::Read(p)) if tag == eventtype::FD_READ => p.remaining() as u64,
                    Kind::File(f) if tag == eventtype::FD_READ => {
                        use system_interface::fs::FileIoExt;
                        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
                        len.saturating_sub(f.stream_position().unwrap_or(len))
                    }
                    _ => 0,
                };
                ready.push(Event { userdata, error: Errno::Success, kind: tag, nbytes, flags: 0 });
            }
            _ => return Err(Errno::Inval),
        }
    }
    // Ready events answer at once; host streams are still asked, without
    // waiting, so that all that are ready are reported together.
    let wait = if ready.is_empty() { timer.as_ref().map(|(t, _)| *t) } else { Some(Duration::ZERO) };
    let fired = wait_host(&waiting, wait, &mut ready)?;
    if !fired && ready.is_empty() {
        if let Some((_, ids)) = timer {
            for userdata in ids {
                ready.push(Event { userdata, error: Errno::Success, kind: eventtype::CLOCK, nbytes: 0, flags: 0 });
            }
        }
    }
    for (i, ev) in ready.iter().take(n as usize).enumerate() {
        mem.write(events + i as u32 * size::EVENT, &ev.to_bytes())?;
    }
    mem.write_u32(out, ready.len().min(n as usize) as u32)
}

/// Polls the host streams for up to `wait` (forever when `None`), adding
/// an event for each that is ready. Returns whether any was; with no
/// streams it just sleeps. A stop of the guest's call ends the wait early
/// (`EINTR`, which the guest never sees: its call traps on return).
fn wait_host(waiting: &[Waiting], wait: Option<Duration>, ready: &mut Vec<Event>) -> WasiResult<bool> {
    if waiting.is_empty() && wait.is_none() {
        // Nothing can ever wake the guest.
        return Err(Errno::Inval);
    }
    let mut fds: Vec<libc::pollfd> = waiting
        .iter()
        .map(|w| libc::pollfd {
            fd: w.fd,
            events: if w.kind == eventtype::FD_READ { libc::POLLIN } else { libc::POLLOUT },
            revents: 0,
        })
        .collect();
    let n = match blocking::poll(&mut fds, wait)? {
        Polled::Ready(n) => n,
        Polled::Stopped(_) => return Err(Errno::Intr),
    };
    for (w, p) in waiting.iter().zip(&fds) {
        if p.revents == 0 {
            continue;
        }
        let (error, flags) = if p.revents & libc::POLLNVAL != 0 {
            (Errno::Badf, 0)
        } else if p.revents & libc::POLLHUP != 0 {
            (Errno::Success, EVENT_FD_READWRITE_HANGUP)
        } else {
            (Errno::Success, 0)
        };
        ready.push(Event { userdata: w.userdata, error, kind: w.kind, nbytes: 0, flags });
    }
    Ok(n > 0)
}
